//go:build !js && !linux

package devserver

import "errors"

// PinProcess is Linux only (sched_setaffinity).
func PinProcess(pid string, cpu int) error {
	return errors.New("pinning processes needs Linux")
}
