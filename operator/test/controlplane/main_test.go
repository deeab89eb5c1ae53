package controlplane_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	// envtest logs through controller-runtime's global logger, which
	// complains with a stack trace unless someone sets it.
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
