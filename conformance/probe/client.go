package probe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// AckTimeout bounds how long a client waits for the harness to acknowledge an event.
const AckTimeout = 2 * time.Second

// ack is the harness's reply to every event line.
const ack = "ok\n"

// Emit delivers one event to the harness listening on socket and waits until the harness has
// stamped it, so that anything the caller does afterwards happens after the stamp. When the
// socket cannot be reached it appends the event to FallbackFile in the socket's directory.
// It returns an error only when neither worked.
func Emit(socket string, ev Event) error {
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	line = append(line, '\n')
	sockErr := sendLine(socket, line)
	if sockErr == nil {
		return nil
	}
	path := filepath.Join(filepath.Dir(socket), FallbackFile)
	if err := appendLine(path, line); err != nil {
		return errors.Join(fmt.Errorf("send to %s: %w", socket, sockErr), err)
	}
	return nil
}

func sendLine(socket string, line []byte) error {
	conn, err := net.DialTimeout("unix", socket, AckTimeout)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(AckTimeout)); err != nil {
		return fmt.Errorf("set deadline: %w", err)
	}
	if _, err := conn.Write(line); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("read acknowledgement: %w", err)
	}
	if reply != ack {
		return fmt.Errorf("unexpected acknowledgement %q", reply)
	}
	return nil
}

func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("open fallback file: %w", err)
	}
	// One write call: O_APPEND makes it land whole after whatever other processes wrote.
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
