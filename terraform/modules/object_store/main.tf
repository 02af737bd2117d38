# The archive bucket: TideMQ's storage nodes tier sealed segments and per-partition
# manifests under `<archive_prefix>/` (docs/tiering.md). The bucket is the durable history
# of every queue and topic, so it is versioned, encrypted, private, TLS-only, and only the
# nodes' role (and optional read-only roles) may touch its objects.

locals {
  kms_enabled = var.kms_key_arn != null

  bucket_arn  = "arn:${data.aws_partition.current.partition}:s3:::${var.bucket_name}"
  archive_arn = "${local.bucket_arn}/${var.archive_prefix}/*"

  # Principals allowed each kind of object access. The bucket policy denies everyone
  # else, so that an over-broad IAM policy elsewhere in the account cannot read or
  # rewrite the archive.
  reader_arns = distinct(concat(var.node_role_arns, var.reader_role_arns))
}

data "aws_partition" "current" {}

resource "aws_s3_bucket" "this" {
  #checkov:skip=CKV_AWS_144:Cross-region replication is a disaster-recovery choice of the deployment (a second bucket in another region), not of this module; docs/deploy.md explains how to add it.
  #checkov:skip=CKV2_AWS_62:No consumer of event notifications: TideMQ lists archived segments through its manifests, not through S3 events.
  #checkov:skip=CKV_AWS_145:SSE-KMS with a customer managed key is used when kms_key_arn is set; SSE-S3 otherwise, which the operator chooses (variables.tf).
  #checkov:skip=CKV_AWS_18:Server access logging is on when access_log_bucket is set (aws_s3_bucket_logging below); the target bucket belongs to the deployment.
  bucket        = var.bucket_name
  force_destroy = var.force_destroy

  tags = var.tags
}

resource "aws_s3_bucket_ownership_controls" "this" {
  bucket = aws_s3_bucket.this.id

  # ACLs off: access is decided by IAM and the bucket policy only.
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_public_access_block" "this" {
  bucket = aws_s3_bucket.this.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_versioning" "this" {
  bucket = aws_s3_bucket.this.id

  # Manifests are replaced in place: versions let an operator recover one that a bug
  # or a mistaken delete overwrote. Lifecycle below bounds what the old versions cost.
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = local.kms_enabled ? "aws:kms" : "AES256"
      kms_master_key_id = var.kms_key_arn
    }
    # One data key per bucket instead of one KMS request per segment read or written.
    bucket_key_enabled = local.kms_enabled
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  # Retention of current segments is TideMQ's own (TIDEMQ_ARCHIVE_RETENTION_MS): it drops
  # a segment from the manifest before deleting it. An S3 expiration of current objects
  # would also expire the manifest of a quiet partition, so there is none here.
  rule {
    id     = "abort-incomplete-multipart-uploads"
    status = "Enabled"

    filter {}

    abort_incomplete_multipart_upload {
      days_after_initiation = var.abort_incomplete_multipart_upload_days
    }
  }

  rule {
    id     = "expire-noncurrent-versions"
    status = "Enabled"

    filter {}

    noncurrent_version_expiration {
      noncurrent_days = var.noncurrent_version_expiration_days
    }

    # A delete marker left with no version behind it serves no recovery.
    expiration {
      expired_object_delete_marker = true
    }
  }

  # Disabled rather than absent when off, so that turning it on or off is a one-line diff.
  rule {
    id     = "intelligent-tiering"
    status = var.intelligent_tiering_after_days == null ? "Disabled" : "Enabled"

    filter {
      prefix = "${var.archive_prefix}/"
    }

    transition {
      days          = coalesce(var.intelligent_tiering_after_days, 0)
      storage_class = "INTELLIGENT_TIERING"
    }
  }

  # The rules apply to versions that versioning creates.
  depends_on = [aws_s3_bucket_versioning.this]
}

resource "aws_s3_bucket_logging" "this" {
  count = var.access_log_bucket == null ? 0 : 1

  bucket        = aws_s3_bucket.this.id
  target_bucket = var.access_log_bucket
  target_prefix = "${var.bucket_name}/"
}

resource "aws_s3_bucket_policy" "this" {
  bucket = aws_s3_bucket.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid       = "DenyInsecureTransport"
        Effect    = "Deny"
        Principal = "*"
        Action    = "s3:*"
        Resource  = [local.bucket_arn, "${local.bucket_arn}/*"]
        Condition = { Bool = { "aws:SecureTransport" = "false" } }
      },
      {
        Sid       = "DenyTlsOlderThan12"
        Effect    = "Deny"
        Principal = "*"
        Action    = "s3:*"
        Resource  = [local.bucket_arn, "${local.bucket_arn}/*"]
        Condition = { NumericLessThan = { "s3:TlsVersion" = "1.2" } }
      },
      {
        Sid       = "DenyObjectReadsButTideMQ"
        Effect    = "Deny"
        Principal = "*"
        Action    = ["s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectAttributes"]
        Resource  = "${local.bucket_arn}/*"
        Condition = { ArnNotLike = { "aws:PrincipalArn" = local.reader_arns } }
      },
      {
        Sid       = "DenyObjectWritesButNodes"
        Effect    = "Deny"
        Principal = "*"
        Action = [
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:DeleteObjectVersion",
          "s3:AbortMultipartUpload",
          "s3:RestoreObject",
        ]
        Resource  = "${local.bucket_arn}/*"
        Condition = { ArnNotLike = { "aws:PrincipalArn" = var.node_role_arns } }
      },
    ]
  })

  # The public access block first: otherwise S3 may evaluate the policy before it exists.
  depends_on = [aws_s3_bucket_public_access_block.this]
}
