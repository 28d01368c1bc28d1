package schema

// Version is the schema version written into Doc.Schema.
const Version = 1

// Doc is one run of the harness.
type Doc struct {
	Schema int    `json:"schema"` // Version
	Title  string `json:"title"`  // names the document
	Date   string `json:"date"`   // when the run started, RFC 3339 in UTC
	// Quick is true for a -quick run: every cell once, briefly; its figures
	// prove the harness works and say nothing of speed.
	Quick    bool     `json:"quick"`
	Machine  Machine  `json:"machine"`  // describes where the run happened
	Versions Versions `json:"versions"` // names what was measured
	Harness  Harness  `json:"harness"`  // says how the run was made
	Policy   []string `json:"policy"`   // states how cells are measured and how to read the ratios
	Goals    []Goal   `json:"goals"`    // the targets the issues set, each checked against the sets
	Sets     []Set    `json:"sets"`     // the measurements
}

// Machine describes the computer and its state during the run.
type Machine struct {
	CPU       string  `json:"cpu"`  // the processor model
	CPUs      int     `json:"cpus"` // the number of logical CPUs the run could use
	OS        string  `json:"os"`   // OS and Arch are Go's names for the platform
	Arch      string  `json:"arch"`
	MemoryGiB float64 `json:"memory_gib"` // the installed memory
	// LoadBefore and LoadAfter are the 1, 5 and 15 minute load averages
	// when the run started and when it ended: the machine may be shared.
	LoadBefore []float64 `json:"load_average_before"`
	LoadAfter  []float64 `json:"load_average_after"`
	// CPUSteal is the share (0 to 1) of the CPUs' time that the
	// hypervisor gave to other machines during the run (steal, in
	// /proc/stat), when the platform tells it: time the run wanted a CPU
	// and had none.
	CPUSteal       *float64 `json:"cpu_steal,omitempty"`
	OpenFilesLimit uint64   `json:"open_files_limit"` // the limit on open files the harness ran under
}

// Versions names the software measured.
type Versions struct {
	Go string `json:"go"` // the Go release the harness and peers were built with
	// Caddy is the output of `caddy version` for the binary measured, and
	// CaddyBuilt when that binary was last written (RFC 3339, UTC).
	Caddy      string            `json:"caddy"`
	CaddyBuilt string            `json:"caddy_built,omitempty"`
	Commit     string            `json:"commit"`  // this repository's commit, "-dirty" when files were changed
	Modules    map[string]string `json:"modules"` // maps the peers' and libraries' module paths to versions
}

// Harness says how the run was made.
type Harness struct {
	Command  string            `json:"command"`  // what was run, from the repository root
	Seconds  float64           `json:"seconds"`  // how long the whole run took
	Settings map[string]string `json:"settings"` // the durations and counts of the run's profile
}

// Set is one table of measurements: cells by series, one metric drawn.
type Set struct {
	ID string `json:"id"` // names the set in files (charts/<id>.png) and in goals
	// Group gathers sets shown together: inprocess, http, websocket,
	// stream, client, nodes, browser.
	Group       string       `json:"group"`
	Title       string       `json:"title"`                 // the heading shown above the set
	Status      string       `json:"status"`                // Measured, NotMeasured or Failed
	Harness     string       `json:"harness"`               // says what served the requests and how they were sent
	Note        string       `json:"note,omitempty"`        // adds what a reader needs to read the figures right
	Metric      Metric       `json:"metric"`                // the set's main metric, the one the chart draws
	XLabel      string       `json:"x_label"`               // names what the cells vary
	Cells       []string     `json:"cells"`                 // the x values, in the order shown
	Series      []Series     `json:"series"`                // the measurements, one per implementation and metric
	Comparisons []Comparison `json:"comparisons,omitempty"` // put ours next to each peer, cell by cell
	Error       string       `json:"error,omitempty"`       // says why a Failed set failed
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
	Name   string `json:"name"`          // the key series refer to, for example "ns_per_call"
	Unit   string `json:"unit"`          // the unit as shown, for example "ns per call"
	Better string `json:"better"`        // "lower" or "higher"
	Log    bool   `json:"log,omitempty"` // draws the chart on a logarithmic axis
}

// Directions of Metric.Better.
const (
	Lower  = "lower"
	Higher = "higher"
)

// Series is one implementation's figures for one metric.
type Series struct {
	Name  string `json:"name"`  // identifies the implementation: "ours", "geth", "respond", ...
	Label string `json:"label"` // the legend text
	Role  string `json:"role"`  // Ours, Peer, Ceiling or Baseline
	// Metric is the name of a Metric: the set's main one or a secondary
	// one (Unit then says what it is).
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`   // the metric's unit as shown
	Points []Point `json:"points"` // one figure per cell, in the set's cell order
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
	X      string    `json:"x"`      // the cell
	Median float64   `json:"median"` // Median, Low and High are the median, lowest and highest of Runs
	Low    float64   `json:"low"`
	High   float64   `json:"high"`
	Runs   []float64 `json:"runs"` // the figure of every timed run, in order
}

// Comparison is ours against a peer on one cell of the main metric.
type Comparison struct {
	X          string  `json:"x"`    // the cell
	Ours       string  `json:"ours"` // Ours and Peer name the two series
	Peer       string  `json:"peer"`
	OursMedian float64 `json:"ours_median"` // OursMedian and PeerMedian are their medians
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
	ID string `json:"id"` // names the goal
	// Issue is the number of the issue that set it; 0 when none is
	// recorded.
	Issue int    `json:"issue"`
	Text  string `json:"text"` // states the goal
	Set   string `json:"set"`  // the set it is read from
	// Metric, when the goal is a threshold on the set's main metric (not a
	// ratio), names it, and Cell the one cell it applies to ("" for all):
	// the charts draw such goals.
	Metric   string  `json:"metric,omitempty"`
	Cell     string  `json:"cell,omitempty"`
	Target   float64 `json:"target"`   // the threshold, in Unit
	Measured float64 `json:"measured"` // the figure compared with Target, in Unit
	Unit     string  `json:"unit"`     // what Target and Measured count
	Met      bool    `json:"met"`      // true when Measured reaches Target
	Detail   string  `json:"detail"`   // says which cells the figure comes from, and the others
}
