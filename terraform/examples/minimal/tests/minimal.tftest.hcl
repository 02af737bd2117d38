# Plan-only: `terraform test` in this directory plans the example against mock
# providers, without an AWS account.

mock_provider "aws" {
  mock_data "aws_partition" {
    defaults = {
      partition = "aws"
    }
  }
  mock_data "aws_subnet" {
    defaults = {
      availability_zone = "eu-west-1a"
    }
  }
}

variables {
  region              = "eu-west-1"
  vpc_id              = "vpc-0123456789abcdef0"
  subnet_id           = "subnet-0123456789abcdef0"
  allowed_cidr_blocks = ["10.0.0.0/16"]
  image               = "ghcr.io/example/tidemq:0.1.0"
  archive_bucket_name = "tidemq-minimal-archive-example"
}

run "one_instance_runs_tidemq_up" {
  command = plan

  assert {
    condition     = strcontains(aws_instance.this.user_data, "--entrypoint tidemq ghcr.io/example/tidemq:0.1.0 up")
    error_message = "The instance must run `tidemq up`."
  }

  assert {
    condition     = aws_instance.this.metadata_options[0].http_tokens == "required" && !aws_instance.this.associate_public_ip_address
    error_message = "IMDSv2 only, and no public address."
  }

  assert {
    condition     = aws_ebs_volume.data.encrypted && aws_ebs_volume.data.availability_zone == "eu-west-1a"
    error_message = "The data volume is encrypted and in the instance's zone."
  }
}

run "rejects_the_whole_internet" {
  command = plan

  variables {
    allowed_cidr_blocks = ["0.0.0.0/0"]
  }

  expect_failures = [var.allowed_cidr_blocks]
}
