# Plan-only: `terraform test` in this directory needs no AWS account or credentials.

mock_provider "aws" {
  mock_data "aws_partition" {
    defaults = {
      partition = "aws"
    }
  }
}

variables {
  bucket_name    = "tidemq-archive-test"
  node_role_arns = ["arn:aws:iam::123456789012:role/tidemq-nodes"]
}

run "defaults_are_private_versioned_and_tls_only" {
  command = plan

  assert {
    condition     = aws_s3_bucket_public_access_block.this.block_public_acls && aws_s3_bucket_public_access_block.this.block_public_policy && aws_s3_bucket_public_access_block.this.ignore_public_acls && aws_s3_bucket_public_access_block.this.restrict_public_buckets
    error_message = "Every public access setting must be blocked."
  }

  assert {
    condition     = aws_s3_bucket_versioning.this.versioning_configuration[0].status == "Enabled"
    error_message = "The archive bucket must be versioned."
  }

  assert {
    condition     = one([for rule in aws_s3_bucket_server_side_encryption_configuration.this.rule : rule.apply_server_side_encryption_by_default[0].sse_algorithm]) == "AES256"
    error_message = "Without a KMS key the bucket uses SSE-S3."
  }

  assert {
    condition     = [for rule in aws_s3_bucket_lifecycle_configuration.this.rule : rule.status if rule.id == "intelligent-tiering"] == ["Disabled"]
    error_message = "Without intelligent_tiering_after_days objects stay in S3 Standard."
  }

  assert {
    condition     = contains([for s in jsondecode(aws_s3_bucket_policy.this.policy).Statement : s.Sid], "DenyInsecureTransport")
    error_message = "The bucket policy must refuse requests without TLS."
  }

  assert {
    condition     = aws_s3_bucket.this.bucket == "tidemq-archive-test" && !aws_s3_bucket.this.force_destroy
    error_message = "The bucket keeps its objects on destroy unless asked."
  }
}

run "writes_are_limited_to_the_nodes" {
  command = plan

  variables {
    reader_role_arns = ["arn:aws:iam::123456789012:role/spark"]
  }

  assert {
    condition = [
      for s in jsondecode(aws_s3_bucket_policy.this.policy).Statement :
      s.Condition.ArnNotLike["aws:PrincipalArn"] if s.Sid == "DenyObjectWritesButNodes"
    ][0] == ["arn:aws:iam::123456789012:role/tidemq-nodes"]
    error_message = "Only the nodes' role may write objects."
  }

  assert {
    condition = contains([
      for s in jsondecode(aws_s3_bucket_policy.this.policy).Statement :
      s.Condition.ArnNotLike["aws:PrincipalArn"] if s.Sid == "DenyObjectReadsButTideMQ"
    ][0], "arn:aws:iam::123456789012:role/spark")
    error_message = "Reader roles may read objects."
  }
}

run "kms_key_turns_on_sse_kms" {
  command = plan

  variables {
    kms_key_arn                    = "arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000"
    intelligent_tiering_after_days = 30
  }

  assert {
    condition     = one([for rule in aws_s3_bucket_server_side_encryption_configuration.this.rule : rule.apply_server_side_encryption_by_default[0].sse_algorithm]) == "aws:kms"
    error_message = "A KMS key turns on SSE-KMS."
  }

  assert {
    condition     = [for rule in aws_s3_bucket_lifecycle_configuration.this.rule : rule.status if rule.id == "intelligent-tiering"] == ["Enabled"]
    error_message = "intelligent_tiering_after_days turns the transition rule on."
  }
}

run "rejects_a_bad_bucket_name" {
  command = plan

  variables {
    bucket_name = "Not_A_Bucket"
  }

  expect_failures = [var.bucket_name]
}

run "rejects_no_node_role" {
  command = plan

  variables {
    node_role_arns = []
  }

  expect_failures = [var.node_role_arns]
}
