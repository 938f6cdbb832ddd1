//go:build linux

package devserver

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// PinProcess puts every thread of process pid ("self" for this one) on
// processor cpu.
func PinProcess(pid string, cpu int) error {
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		return err
	}
	var mask [16]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	for _, t := range tasks {
		var tid int
		if _, err := fmt.Sscan(t.Name(), &tid); err != nil {
			continue
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0]))); e != 0 && e != syscall.ESRCH {
			return fmt.Errorf("pinning thread %d to processor %d: %v", tid, cpu, e)
		}
	}
	return nil
}
