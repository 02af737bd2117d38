terraform {
  # 1.7: `terraform test` with mock providers (tests/*.tftest.hcl).
  required_version = ">= 1.7, < 2.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.0, < 7.0"
    }
  }
}
