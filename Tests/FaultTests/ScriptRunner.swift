import Foundation
import PipelineTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs a shell script with `posix_spawn` and polls `waitpid(WNOHANG)` for its exit, its output
/// appended to a file. Not `Foundation.Process`: `scripts/stack restart-postgres` leaves a
/// daemonised postmaster behind that inherits every open descriptor, including the socket
/// Foundation watches to notice the child's exit, so `Process` would never see the script end.
/// The script runs under `bash -c` that first closes every descriptor above 2 for the same reason.
enum ScriptRunner {
    /// Exit status of `script arguments…` (an error when it is still running after `timeout`).
    static func run(_ script: String, _ arguments: [String], environment: [String: String], outputFile: URL,
                    timeout: Duration) async throws -> Int32 {
        let closeAndExec = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; exec "$@""#
        let argv = ["/bin/bash", "-c", closeAndExec, "bash", script] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else { throw PipelineTestFailure("posix_spawn \(script): \(String(cString: strerror(spawned)))") }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if result < 0 { throw PipelineTestFailure("waitpid \(script): \(String(cString: strerror(errno)))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        throw PipelineTestFailure("\(script) \(arguments.joined(separator: " ")) did not finish within \(timeout) (output: \(outputFile.path))")
    }
}
