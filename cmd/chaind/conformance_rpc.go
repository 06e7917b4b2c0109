package main

import "github.com/chaind/chaind/internal/conformance/rpctests"

func init() { runners["rpc"] = rpctests.Run }
