import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a repository script (or any command) as a child process from async test code, the one way the test
/// targets do it: `posix_spawn`, then `waitpid(WNOHANG)` polled off the cooperative pool, output to a file.
///
/// Not `Foundation.Process`: under the test runner its termination handler was seen never to be called (the
/// child stayed a zombie), and `scripts/stack restart-postgres` leaves a daemonised postmaster behind that
/// inherits every open descriptor, including the one Foundation watches for the child's exit. So the command
/// runs under `bash -c`, which first closes every descriptor above 2, then `exec`s it (found on PATH).
public enum ScriptRunner {
    /// What a finished run left behind.
    public struct Result: Sendable {
        /// The exit status (128 + the signal when one killed it; 127 when the command was not found).
        public var status: Int32
        /// stdout and stderr together.
        public var output: String
    }

    /// The repository root (found from this file's path, Tests/SharedTestSupport/ScriptRunner.swift).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `command` in `directory` with `environment`, stdout and stderr appended to `outputFile`.
    /// - Returns: the exit status.
    /// - Throws: `ScriptRunnerFailure` when it cannot start, or is still running after `timeout` (it is then killed).
    public static func run(
        _ command: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: URL = repositoryRoot, outputFile: URL, timeout: Duration
    ) async throws -> Int32 {
        let closeAndExec = #"cd "$1" || exit 127; shift; for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; exec "$@""#
        let argv = ["/bin/bash", "-c", closeAndExec, "bash", directory.path] + command
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
        let what = command.joined(separator: " ")
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else { throw ScriptRunnerFailure(description: "posix_spawn \(what): \(String(cString: strerror(spawned)))") }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if result < 0 { throw ScriptRunnerFailure(description: "waitpid \(what): \(String(cString: strerror(errno)))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        throw ScriptRunnerFailure(description: "\(what) did not finish within \(timeout) (output: \(outputFile.path))")
    }

    /// Runs `command` like `run(_:environment:directory:outputFile:timeout:)`, its output in a temporary file.
    /// - Returns: the exit status and the output.
    public static func output(
        _ command: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: URL = repositoryRoot, timeout: Duration = .seconds(600)
    ) async throws -> Result {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("script-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let status = try await run(command, environment: environment, directory: directory, outputFile: outputFile, timeout: timeout)
        return Result(status: status, output: (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
    }
}

/// A command `ScriptRunner` could not start or that did not finish in time.
public struct ScriptRunnerFailure: Error, CustomStringConvertible {
    public let description: String
}
