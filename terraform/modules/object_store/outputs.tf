output "bucket_name" {
  description = "Name of the archive bucket."
  value       = aws_s3_bucket.this.bucket
}

output "bucket_arn" {
  description = "ARN of the archive bucket."
  value       = aws_s3_bucket.this.arn
}

output "archive_prefix" {
  description = "Key prefix of the archive inside the bucket, without slashes at either end."
  value       = var.archive_prefix
}

output "archive_objects_arn" {
  description = "ARN pattern of the archive's objects (`<bucket ARN>/<archive_prefix>/*`), for IAM policies."
  value       = "${aws_s3_bucket.this.arn}/${var.archive_prefix}/*"
}

output "archive_url" {
  description = "The archive's location as TideMQ takes it in TIDEMQ_ARCHIVE_URL: `s3://<bucket>/<archive_prefix>`."
  value       = "s3://${aws_s3_bucket.this.bucket}/${var.archive_prefix}"
}

output "bucket_region" {
  description = "Region of the bucket, for TIDEMQ_S3_REGION."
  value       = aws_s3_bucket.this.region
}

output "kms_key_arn" {
  description = "ARN of the KMS key that encrypts the archive, or null when it is SSE-S3."
  value       = var.kms_key_arn
}
