// Package evm is the Ethereum Virtual Machine: one operation table per
// fork (jumptable.go), message and transaction execution over a StateDB,
// the precompiles' dispatch and the tracer hooks.
//
// Untraced frames run their code decoded once per code hash and fork
// (program.go): PUSH values decoded, jumps resolved, gas and stack bounds
// checked once per basic block. Traced frames, and any block whose check
// fails, run instruction by instruction through the table
// (interpretChecked), which the fuzz targets hold the fast loop to.
package evm
