import Foundation
import Runtime
import Spawning

/// Runs a short helper command to completion (key generation and the like) without blocking a
/// thread of the cooperative pool: the exit is awaited on a continuation (`Subprocess`).
enum DevCommand {
    /// Runs `executable arguments` with `environment`; returns its combined output.
    /// - Throws: `DevStackError.commandFailed` on a non-zero exit or after `timeout`.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String],
                    timeout: Duration = .seconds(60)) async throws(DevStackError) -> String {
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw .notBuilt(executable: executable.lastPathComponent, binDirectory: executable.deletingLastPathComponent().path)
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("devstack-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        guard let handle = FileHandle(forWritingAtPath: output.path) else {
            throw .commandFailed(command: command, status: -1, output: "cannot write \(output.path)")
        }
        let process: Subprocess
        do {
            process = try Subprocess(executable: executable.path, arguments: arguments, environment: environment,
                                     standardOutput: .file(handle), standardError: .file(handle))
        } catch {
            try? handle.close()
            throw .commandFailed(command: command, status: -1, output: "\(error)")
        }
        try? handle.close()  // the child has its own copy
        guard let ended = await process.waitForExit(timeout: timeout) else {
            process.send(SIGKILL)
            throw .commandFailed(command: command, status: -1, output: "no exit within \(timeout)")
        }
        let text = (FileManager.default.contents(atPath: output.path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard ended == .exited(0) else {
            throw .commandFailed(command: command, status: ended.status, output: text)
        }
        return text
    }
}
