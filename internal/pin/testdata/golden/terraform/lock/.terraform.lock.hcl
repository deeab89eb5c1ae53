# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/cloudflare/cloudflare" {
  version     = "4.34.0"
  constraints = "~> 4.20"
  hashes = [
    "h1:+W0+Xe1AUh7yvHjDbgR9T7CY1UbBC3Y6U7Eo+ucLnJM=",
    "zh:0b7c5a9f7b6f2a4b5c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b",
  ]
}

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "5.31.0"
  hashes = [
    "h1:ltxyuBWIy9cq0kIKDJH1jeWJy/y7XJLjS4QrsQK4plA=",
  ]
}
