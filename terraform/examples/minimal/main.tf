# The smallest useful TideMQ on AWS: one instance running `tidemq up` (gateway, storage
# node and an embedded Redis in one process tree), its data on a separate gp3 volume
# that survives the instance, and the archive in S3. No TLS, no high availability: for
# trying TideMQ in a private network. The complete example is the production shape.

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Application = "TideMQ"
      Deployment  = var.name
    }
  }
}

data "aws_partition" "current" {}

data "aws_subnet" "this" {
  id = var.subnet_id
}

locals {
  port     = 9324
  data_dir = "/var/lib/tidemq"
}

module "object_store" {
  source = "../../modules/object_store"

  bucket_name    = var.archive_bucket_name
  node_role_arns = [aws_iam_role.this.arn]
}

# --- IAM: the archive, and Session Manager for a shell ---------------------------------

resource "aws_iam_role" "this" {
  name_prefix = "${var.name}-"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "archive" {
  name = "tidemq-archive"
  role = aws_iam_role.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid       = "ListArchive"
        Effect    = "Allow"
        Action    = "s3:ListBucket"
        Resource  = module.object_store.bucket_arn
        Condition = { StringLike = { "s3:prefix" = ["${module.object_store.archive_prefix}/*"] } }
      },
      {
        Sid      = "ReadWriteArchive"
        Effect   = "Allow"
        Action   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
        Resource = module.object_store.archive_objects_arn
      },
    ]
  })
}

resource "aws_iam_role_policy_attachment" "ssm" {
  role       = aws_iam_role.this.name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
}

resource "aws_iam_instance_profile" "this" {
  name_prefix = "${var.name}-"
  role        = aws_iam_role.this.name
}

# --- network -------------------------------------------------------------------------

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-"
  description = "TideMQ all-in-one (${var.name})"
  vpc_id      = var.vpc_id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "clients" {
  for_each = toset(var.allowed_cidr_blocks)

  security_group_id = aws_security_group.this.id
  description       = "TideMQ clients"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = local.port
  to_port           = local.port
}

resource "aws_vpc_security_group_egress_rule" "https" {
  security_group_id = aws_security_group.this.id
  description       = "HTTPS to S3, the image registry, Session Manager and the OS packages"
  cidr_ipv4         = "0.0.0.0/0"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
}

# --- the instance and its data volume ------------------------------------------------

resource "aws_instance" "this" {
  ami                         = "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
  instance_type               = var.instance_type
  subnet_id                   = var.subnet_id
  vpc_security_group_ids      = [aws_security_group.this.id]
  iam_instance_profile        = aws_iam_instance_profile.this.name
  associate_public_ip_address = false
  ebs_optimized               = true
  monitoring                  = true
  user_data_replace_on_change = true

  user_data = templatefile("${path.module}/templates/user_data.sh.tftpl", {
    image       = var.image
    port        = local.port
    data_dir    = local.data_dir
    archive_url = module.object_store.archive_url
  })

  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  root_block_device {
    volume_type           = "gp3"
    volume_size           = 30
    encrypted             = true
    delete_on_termination = true
  }

  tags = { Name = var.name }

  # Ignore newer Amazon Linux releases: only an explicit change replaces the instance.
  lifecycle {
    ignore_changes = [ami]
  }
}

resource "aws_ebs_volume" "data" {
  #checkov:skip=CKV_AWS_189:Encrypted with the account's default EBS key; a customer managed key adds nothing to a trial deployment.
  availability_zone = data.aws_subnet.this.availability_zone
  type              = "gp3"
  size              = var.data_volume_size_gib
  encrypted         = true

  tags = { Name = "${var.name}-data" }
}

resource "aws_volume_attachment" "data" {
  device_name = "/dev/xvdb"
  volume_id   = aws_ebs_volume.data.id
  instance_id = aws_instance.this.id
  # Stop the instance (and so `tidemq up`, cleanly) before detaching its data.
  stop_instance_before_detaching = true
}
