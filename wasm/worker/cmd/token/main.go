// Command token prints a bearer token of the edge worker for a tenant, signed
// with SESSIONTREE_SIGNING_KEY from the environment or from a .dev.vars file.
//
//	go run ./wasm/worker/cmd/token -vars wasm/worker/.dev.vars -tenant alice
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sessiontree/sessiontree/wasm/edge"
)

func main() {
	tenant := flag.String("tenant", "", "the tenant the token is for")
	vars := flag.String("vars", ".dev.vars", "a file of NAME=value lines holding SESSIONTREE_SIGNING_KEY")
	ttl := flag.Duration("ttl", 12*time.Hour, "how long the token is valid (at most 24h: the worker refuses longer ones; get a new token to refresh)")
	flag.Parse()
	key := os.Getenv("SESSIONTREE_SIGNING_KEY")
	if key == "" {
		var err error
		if key, err = readVar(*vars, "SESSIONTREE_SIGNING_KEY"); err != nil {
			fmt.Fprintln(os.Stderr, "token:", err)
			os.Exit(1)
		}
	}
	tok, err := issue([]byte(key), *tenant, *ttl, time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, "token:", err)
		os.Exit(2)
	}
	fmt.Println(tok)
}

// issue is the token for tenant valid for ttl from now. A ttl the worker
// would refuse (none, or over edge.MaxTokenLifetime) is an error: such a token
// was printed, and every request with it was 401.
func issue(key []byte, tenant string, ttl time.Duration, now time.Time) (string, error) {
	if ttl <= 0 || ttl > edge.MaxTokenLifetime*time.Second {
		return "", fmt.Errorf("-ttl must be above 0 and at most 24h (the worker refuses a token valid for longer), not %v", ttl)
	}
	return edge.IssueToken(key, tenant, now.Add(ttl).Unix())
}

func readVar(path, name string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == name {
			return strings.Trim(strings.TrimSpace(v), `"'`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no %s", path, name)
}
