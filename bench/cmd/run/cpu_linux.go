package main

// cpuModel is the processor's model name from /proc/cpuinfo, "" when it
// cannot be read.
func cpuModel() string {
	if cpus, err := proc.CPUInfo(); err == nil && len(cpus) > 0 {
		return cpus[0].ModelName
	}
	return ""
}
