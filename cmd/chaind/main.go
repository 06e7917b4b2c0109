// Command chaind is the chaind node: an EVM-compatible proof-of-stake chain
// in one binary. Run "chaind help" for the subcommands.
package main

import (
	"fmt"
	"os"
)

type command struct {
	name  string
	usage string
	run   func(args []string) int
}

var commands []command

func register(c command) { commands = append(commands, c) }

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "--help":
			usage()
			return 0
		}
		for _, c := range commands {
			if c.name == args[0] {
				return c.run(args[1:])
			}
		}
		if len(args[0]) > 0 && args[0][0] != '-' {
			fmt.Fprintf(os.Stderr, "chaind: unknown command %q (see chaind help)\n", args[0])
			return 2
		}
	}
	return runNode(args)
}

// usage lists the commands and the node's own flags: bare "chaind" runs
// the node, so its flags are the ones most people look for.
func usage() {
	fmt.Println("usage: chaind [flags]             run a node (try: chaind --dev)\n       chaind COMMAND [args]     (chaind COMMAND --help for its flags)\n\ncommands:")
	for _, c := range commands {
		fmt.Printf("  %-14s %s\n", c.name, c.usage)
	}
	fs, _, _ := nodeFlags()
	fmt.Println("\nnode flags (also CHAIND_<FLAG> or a JSON --config file):")
	fs.SetOutput(os.Stdout)
	fs.PrintDefaults()
}
