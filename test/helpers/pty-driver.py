# Runs a command in a real pseudo-terminal, the way a person at a terminal would: waits for text to
# appear, then types. Used by test/cli/terminal.test.ts (Python's pty module: no native Node addon).
# Input: one JSON argument {argv, cwd, env, steps: [{wait, send}], timeout}. Output: JSON {output, code}.
import json, os, pty, select, sys, time

spec = json.loads(sys.argv[1])
deadline = time.time() + spec.get("timeout", 30)
pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec["cwd"])
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])

output = b""

def read_some(wait):
    global output
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    if not chunk:
        return False
    output += chunk
    return True

alive = True
for step in spec["steps"]:
    needle = step["wait"].encode()
    while alive and needle not in output and time.time() < deadline:
        alive = read_some(0.05)
    if needle not in output:
        break
    time.sleep(step.get("delay", 0.1))
    os.write(fd, step["send"].encode())
while alive and time.time() < deadline:
    alive = read_some(0.05)
if time.time() >= deadline:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
print(json.dumps({"output": output.decode("utf8", "replace"), "code": code}))
