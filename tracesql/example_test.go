//go:build cgo

package tracesql_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/internal/workload"
	"github.com/chronon-sim/chronon-go/tracesql"
)

// Open a trace and ask it a question in SQL: how many fetches were taken,
// per unit, in a window of cycles.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "w1.ctrace")
	if _, err := workload.Run("w1", path, 100_000, 4, 1, chronon.WithAutoMetadata(false)); err != nil {
		log.Fatal(err)
	}

	db, err := tracesql.Open([]string{path})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT unit, count(*) AS fetches, count(*) FILTER (WHERE taken) AS taken
		FROM fetch_(cycles := '10000-20000') GROUP BY unit ORDER BY unit`)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var unit string
		var fetches, taken int64
		if err := rows.Scan(&unit, &fetches, &taken); err != nil {
			log.Fatal(err)
		}
		fmt.Println(unit, fetches, taken)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// core0.fetch 3891 1922
	// core0.rename 3891 2003
}
