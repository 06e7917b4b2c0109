package staking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chaind/chaind/internal/types"
)

// ContractSpec describes one system contract for tools: its name, address,
// methods and events.
type ContractSpec struct {
	Name    string
	Address types.Address
	methods []*method
	events  []*event
}

// Specs lists the system contracts.
func Specs() []ContractSpec {
	return []ContractSpec{
		{Name: "Staking", Address: StakingAddress, methods: stakingMethods, events: stakingEvents},
		{Name: "Distribution", Address: DistributionAddress, methods: distributionMethods, events: distributionEvents},
		{Name: "Governance", Address: GovernanceAddress, methods: governanceMethods, events: governanceEvents},
	}
}

type abiParam struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Indexed *bool  `json:"indexed,omitempty"`
}

type abiEntry struct {
	Type            string     `json:"type"`
	Name            string     `json:"name"`
	Inputs          []abiParam `json:"inputs"`
	Outputs         []abiParam `json:"outputs,omitempty"`
	StateMutability string     `json:"stateMutability,omitempty"`
	Anonymous       *bool      `json:"anonymous,omitempty"`
}

func abiParams(ps []string, event bool) []abiParam {
	out := []abiParam{}
	for _, p := range ps {
		f := strings.Fields(p)
		ap := abiParam{Type: f[0], Name: f[len(f)-1]}
		if event {
			idx := len(f) == 3 && f[1] == "indexed"
			ap.Indexed = &idx
		}
		out = append(out, ap)
	}
	return out
}

// ABI returns the contract's Solidity ABI as JSON, what ethers, viem and
// web3 take to call it.
func (c ContractSpec) ABI() []byte {
	var entries []abiEntry
	for _, m := range c.methods {
		mut := "view"
		switch {
		case m.payable:
			mut = "payable"
		case m.write:
			mut = "nonpayable"
		}
		outs := abiParams(m.out, false)
		entries = append(entries, abiEntry{Type: "function", Name: m.name, Inputs: abiParams(m.in, false), Outputs: outs, StateMutability: mut})
	}
	for _, e := range c.events {
		f := false
		entries = append(entries, abiEntry{Type: "event", Name: e.name, Inputs: abiParams(e.params, true), Anonymous: &f})
	}
	out, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// solParam renders a parameter with the data location Solidity wants.
func solParam(p, location string) string {
	f := strings.Fields(p)
	t := f[0]
	if t == "string" || t == "bytes" || strings.HasSuffix(t, "[]") {
		return t + " " + location + " " + f[len(f)-1]
	}
	return p
}

// Solidity returns a Solidity interface of the contract.
func (c ContractSpec) Solidity() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n\n")
	fmt.Fprintf(&b, "/// @title chaind %s system contract\n", strings.ToLower(c.Name))
	fmt.Fprintf(&b, "/// @notice Native code at %s; generated from the node's method table.\n", c.Address)
	fmt.Fprintf(&b, "interface I%s {\n", c.Name)
	for _, e := range c.events {
		fmt.Fprintf(&b, "    event %s(%s);\n", e.name, strings.Join(e.params, ", "))
	}
	b.WriteString("\n")
	for _, m := range c.methods {
		var in, out []string
		for _, p := range m.in {
			in = append(in, solParam(p, "calldata"))
		}
		for _, p := range m.out {
			out = append(out, solParam(p, "memory"))
		}
		mut := " view"
		switch {
		case m.payable:
			mut = " payable"
		case m.write:
			mut = ""
		}
		fmt.Fprintf(&b, "    /// gas: %d\n", m.gas)
		fmt.Fprintf(&b, "    function %s(%s) external%s returns (%s);\n", m.name, strings.Join(in, ", "), mut, strings.Join(out, ", "))
	}
	b.WriteString("}\n")
	return b.Bytes()
}
