package main

import "github.com/chaind/chaind/internal/conformance/graphqltests"

func init() { runners["graphql"] = graphqltests.Run }
