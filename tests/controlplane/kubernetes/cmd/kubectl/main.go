// Upstream's own command, built from the module pinned in go.mod (see ../../README.md).
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() { util.CheckErr(cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand())) }
