import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a shell script as a child process (posix_spawn + waitpid on its own queue, off the
/// cooperative pool). Foundation's `Process` is not used: under the test runner its termination
/// handler was never called and the child stayed a zombie.
enum ScriptRunner {
    /// Runs `bash <script> <arguments…>` with this process's environment.
    /// - Returns: the exit status and the combined stdout/stderr.
    static func run(_ script: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("postgres-tests-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestFailure("posix_spawn \(script) failed: errno \(spawned)") }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue(label: "postgres-tests.waitpid").async {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                continuation.resume(returning: (status >> 8) & 0xff)
            }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (status, output)
    }
}
