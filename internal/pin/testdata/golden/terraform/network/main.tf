terraform {
  required_version = ">= 1.6.0"

  required_providers {
    # Held at 5.31.0: 5.32 recreates every aws_lb_listener (see ADR 0022).
    aws = {
      source  = "hashicorp/aws"
      version = "= 5.31.0"
    }
    cloudflare = {
      source                = "cloudflare/cloudflare"
      version               = "~> 4.20"
      configuration_aliases = [cloudflare.dns]
    }
    random = "3.6.2"
    tls = {
      source = "registry.terraform.io/hashicorp/tls"
    }
  }

  backend "s3" {
    bucket = "acme-tfstate"
    key    = "network/terraform.tfstate"
    region = "eu-west-1"
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.8.1"

  name = "platform"
  cidr = "10.40.0.0/16"
  azs  = ["eu-west-1a", "eu-west-1b"]
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = ">= 20.0, < 21.0"
}

module "tags" {
  source = "git::https://github.com/acme/terraform-tags.git?ref=v1.4.0"
}

module "dns" {
  source = "./modules/dns"
  zone   = var.zone
}

resource "random_id" "suffix" {
  byte_length = 4
}
