package main

import "github.com/chaind/chaind/internal/conformance/trietests"

func init() { runners["trie"] = trietests.Run }
