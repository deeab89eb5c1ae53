package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	pinbot := flag.String("pinbot", "bin/pinbot", "the pinbot binary to run as `pinbot serve`")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, Options{Pinbot: *pinbot, Out: os.Stdout}); err != nil {
		fmt.Fprintf(os.Stderr, "pinbot demo: %v\n", err)
		os.Exit(1)
	}
}
