package main

import "testing"

// These run one side of the import case on its own, for profiling
// (go test -bench Import -cpuprofile / -memprofile); the ratio comes from
// the peerbench command, which alternates the two.
func BenchmarkImportOurs(b *testing.B) { b.ReportAllocs(); importOurs(b) }
func BenchmarkImportGeth(b *testing.B) { b.ReportAllocs(); importGeth(b) }
