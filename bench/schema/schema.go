package schema

// Version is the schema version written into Doc.Schema.
const Version = 1

// Doc is one run of the harness.
type Doc struct {
	// Schema is Version.
	Schema int `json:"schema"`
	// Title names the document.
	Title string `json:"title"`
	// Date is when the run started, RFC 3339 in UTC.
	Date string `json:"date"`
	// Quick is true for a -quick run: every cell once, briefly; its figures
	// prove the harness works and say nothing of speed.
	Quick bool `json:"quick"`
	// Machine describes where the run happened.
	Machine Machine `json:"machine"`
	// Versions names what was measured.
	Versions Versions `json:"versions"`
	// Harness says how the run was made.
	Harness Harness `json:"harness"`
	// Policy states how cells are measured and how to read the ratios.
	Policy []string `json:"policy"`
	// Goals are the targets the issues set, each checked against the sets.
	Goals []Goal `json:"goals"`
	// Sets are the measurements.
	Sets []Set `json:"sets"`
}

// Machine describes the computer and its state during the run.
type Machine struct {
	// CPU is the processor model.
	CPU string `json:"cpu"`
	// CPUs is the number of logical CPUs the run could use.
	CPUs int `json:"cpus"`
	// OS and Arch are Go's names for the platform.
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// MemoryGiB is the installed memory.
	MemoryGiB float64 `json:"memory_gib"`
	// LoadBefore and LoadAfter are the 1, 5 and 15 minute load averages
	// when the run started and when it ended: the machine may be shared.
	LoadBefore []float64 `json:"load_average_before"`
	LoadAfter  []float64 `json:"load_average_after"`
	// CPUSteal is the share (0 to 1) of the CPUs' time that the
	// hypervisor gave to other machines during the run (steal, in
	// /proc/stat), when the platform tells it: time the run wanted a CPU
	// and had none.
	CPUSteal *float64 `json:"cpu_steal,omitempty"`
	// OpenFilesLimit is the limit on open files the harness ran under.
	OpenFilesLimit uint64 `json:"open_files_limit"`
}

// Versions names the software measured.
type Versions struct {
	// Go is the Go release the harness and peers were built with.
	Go string `json:"go"`
	// Caddy is the output of `caddy version` for the binary measured, and
	// CaddyBuilt when that binary was last written (RFC 3339, UTC).
	Caddy      string `json:"caddy"`
	CaddyBuilt string `json:"caddy_built,omitempty"`
	// Commit is this repository's commit, "-dirty" when files were changed.
	Commit string `json:"commit"`
	// Modules maps the peers' and libraries' module paths to versions.
	Modules map[string]string `json:"modules"`
}

// Harness says how the run was made.
type Harness struct {
	// Command is what was run, from the repository root.
	Command string `json:"command"`
	// Seconds is how long the whole run took.
	Seconds float64 `json:"seconds"`
	// Settings are the durations and counts of the run's profile.
	Settings map[string]string `json:"settings"`
}

// Set is one table of measurements: cells by series, one metric drawn.
type Set struct {
	// ID names the set in files (charts/<id>.png) and in goals.
	ID string `json:"id"`
	// Group gathers sets shown together: inprocess, http, websocket,
	// stream, client, nodes, browser.
	Group string `json:"group"`
	// Title is the heading shown above the set.
	Title string `json:"title"`
	// Status is Measured, NotMeasured or Failed.
	Status string `json:"status"`
	// Harness says what served the requests and how they were sent.
	Harness string `json:"harness"`
	// Note adds what a reader needs to read the figures right.
	Note string `json:"note,omitempty"`
	// Metric is the set's main metric, the one the chart draws.
	Metric Metric `json:"metric"`
	// XLabel names what the cells vary.
	XLabel string `json:"x_label"`
	// Cells are the x values, in the order shown.
	Cells []string `json:"cells"`
	// Series are the measurements, one per implementation and metric.
	Series []Series `json:"series"`
	// Comparisons put ours next to each peer, cell by cell.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// Error says why a Failed set failed.
	Error string `json:"error,omitempty"`
	// CPUSteal is Machine.CPUSteal while this set ran (for the sets of a
	// group measured together, while the group ran).
	CPUSteal *float64 `json:"cpu_steal,omitempty"`
	// Source holds a set written by another tool that does not follow this
	// schema, kept as it was.
	Source any `json:"source,omitempty"`
}

// Set statuses.
const (
	Measured    = "measured"
	NotMeasured = "not_measured"
	Failed      = "failed"
)

// Metric is what a series measures.
type Metric struct {
	// Name is the key series refer to, for example "ns_per_call".
	Name string `json:"name"`
	// Unit is the unit as shown, for example "ns per call".
	Unit string `json:"unit"`
	// Better is "lower" or "higher".
	Better string `json:"better"`
	// Log draws the chart on a logarithmic axis.
	Log bool `json:"log,omitempty"`
}

// Directions of Metric.Better.
const (
	Lower  = "lower"
	Higher = "higher"
)

// Series is one implementation's figures for one metric.
type Series struct {
	// Name identifies the implementation: "ours", "geth", "respond", ...
	Name string `json:"name"`
	// Label is the legend text.
	Label string `json:"label"`
	// Role is Ours, Peer, Ceiling or Baseline.
	Role string `json:"role"`
	// Metric is the name of a Metric: the set's main one or a secondary
	// one (Unit then says what it is).
	Metric string `json:"metric"`
	// Unit is the metric's unit as shown.
	Unit string `json:"unit"`
	// Points hold one figure per cell, in the set's cell order.
	Points []Point `json:"points"`
}

// Series roles: this project; another JSON-RPC implementation; what the
// server does with no JSON-RPC at all (Caddy's static respond); this project
// measured another way, to compare against (one call per POST for batches).
const (
	Ours     = "ours"
	Peer     = "peer"
	Ceiling  = "ceiling"
	Baseline = "baseline"
)

// Point is one cell's figure: the median of its timed runs and their range.
type Point struct {
	// X is the cell.
	X string `json:"x"`
	// Median, Low and High are the median, lowest and highest of Runs.
	Median float64 `json:"median"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// Runs holds the figure of every timed run, in order.
	Runs []float64 `json:"runs"`
}

// Comparison is ours against a peer on one cell of the main metric.
type Comparison struct {
	// X is the cell.
	X string `json:"x"`
	// Ours and Peer name the two series.
	Ours string `json:"ours"`
	Peer string `json:"peer"`
	// OursMedian and PeerMedian are their medians.
	OursMedian float64 `json:"ours_median"`
	PeerMedian float64 `json:"peer_median"`
	// Ratio is how many times better ours is: peer ÷ ours when lower is
	// better, ours ÷ peer when higher is; above 1, ours is ahead.
	Ratio float64 `json:"ratio"`
	// Low and High are the ratio's worst and best over the runs paired
	// in order (the n-th run of each, measured close together).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Goal is a target from an issue, checked against the run.
type Goal struct {
	// ID names the goal.
	ID string `json:"id"`
	// Issue is the number of the issue that set it; 0 when none is
	// recorded.
	Issue int `json:"issue"`
	// Text states the goal.
	Text string `json:"text"`
	// Set is the set it is read from.
	Set string `json:"set"`
	// Metric, when the goal is a threshold on the set's main metric (not a
	// ratio), names it, and Cell the one cell it applies to ("" for all):
	// the charts draw such goals.
	Metric string `json:"metric,omitempty"`
	Cell   string `json:"cell,omitempty"`
	// Target is the threshold, in Unit.
	Target float64 `json:"target"`
	// Measured is the figure compared with Target, in Unit.
	Measured float64 `json:"measured"`
	// Unit is what Target and Measured count.
	Unit string `json:"unit"`
	// Met is true when Measured reaches Target.
	Met bool `json:"met"`
	// Detail says which cells the figure comes from, and the others.
	Detail string `json:"detail"`
}
