// Command tracegen writes a synthetic strace log of a Puppet 7 run, and the
// matching catalog, for fsmove's benchmarks (see package bench/gen).
//
//	go run ./cmd/tracegen -size 1G -o /tmp/big.log -catalog /tmp/big.json
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/docker/go-units"
	"github.com/fsmove/fsmove/bench/gen"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// run is the whole command; it returns the exit status (2 for usage errors,
// 1 when writing fails).
func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("tracegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "64M", "trace size to aim for: bytes, or with a K, M or G suffix (powers of 1024)")
	out := fs.String("o", "-", "trace output file; - for standard output")
	catalog := fs.String("catalog", "", "also write the matching catalog JSON to this file")
	conflicts := fs.String("conflicts", "", "also write the planned conflicts as JSON to this file")
	var p gen.Params
	fs.IntVar(&p.Processes, "processes", gen.DefaultProcesses, "distinct pids to aim for")
	fs.IntVar(&p.Paths, "paths", gen.DefaultPaths, "distinct paths to aim for")
	fs.IntVar(&p.Blocks, "blocks", gen.DefaultBlocks, "catalog resources (blocks)")
	fs.IntVar(&p.Conflicts, "n-conflicts", gen.DefaultConflicts, "deliberate conflicts (negative: none)")
	fs.Int64Var(&p.Seed, "seed", 1, "random seed")
	fs.IntVar(&p.StringLimit, "s", gen.DefaultStringLimit, "strace -s string limit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "tracegen: unexpected arguments %q\n", fs.Args())
		return 2
	}
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintf(stderr, "tracegen: -size: %v\n", err)
		return 2
	}
	p.Size = n

	start := time.Now()
	if err := writeTo(*out, stdout, func(w io.Writer) error { return gen.Generate(w, p) }); err != nil {
		fmt.Fprintf(stderr, "tracegen: %v\n", err)
		return 1
	}
	took := time.Since(start)
	if *catalog != "" {
		if err := writeTo(*catalog, stdout, func(w io.Writer) error { return gen.GenerateCatalog(w, p) }); err != nil {
			fmt.Fprintf(stderr, "tracegen: %v\n", err)
			return 1
		}
	}
	if *conflicts != "" {
		cs, err := gen.Conflicts(p)
		if err == nil {
			err = writeTo(*conflicts, stdout, func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(cs)
			})
		}
		if err != nil {
			fmt.Fprintf(stderr, "tracegen: %v\n", err)
			return 1
		}
	}
	if *out != "-" {
		fmt.Fprintf(stderr, "tracegen: wrote %s (%d bytes target) in %v, %.0f MB/s\n",
			*out, n, took.Round(time.Millisecond), float64(n)/1e6/took.Seconds())
	}
	return 0
}

// writeTo runs write on the named file, or on stdout for "-".
func writeTo(name string, stdout io.Writer, write func(io.Writer) error) error {
	if name == "-" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseSize reads 1024, 64K, 64M, 1G (powers of 1024), as docker run --memory does.
func parseSize(s string) (int64, error) {
	v, err := units.RAMInBytes(s)
	if err != nil {
		return 0, err
	}
	if v <= 0 || v > 1<<50 { // RAMInBytes does not check for overflow
		return 0, errors.New("out of range")
	}
	return v, nil
}
