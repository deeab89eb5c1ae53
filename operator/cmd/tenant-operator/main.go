// Command tenant-operator provisions tenants from cluster-scoped Tenant
// resources. The controller itself arrives with issue 3.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "tenant-operator: the controller is not built yet (issue 3)")
	os.Exit(1)
}
