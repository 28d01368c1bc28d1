//go:build !linux

package main

// cpuModel is "" here: procfs reads the model name on Linux only.
func cpuModel() string { return "" }
