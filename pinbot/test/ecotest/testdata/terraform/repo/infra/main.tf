provider "aws" {
  region = var.region
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.8.1"

  name = "platform"
  cidr = "10.40.0.0/16"
}

module "dns" {
  source = "./modules/dns"
  zone   = "platform.acme.example"
}

variable "region" {
  type    = string
  default = "eu-west-1"
}
