import Foundation
import Runtime

/// Runs a short helper command to completion (key generation and the like) without blocking a
/// thread of the cooperative pool: the exit is awaited on the process's termination handler.
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
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncCondition(false)
        process.terminationHandler = { _ in exited.update { $0 = true } }
        do { try process.run() } catch {
            try? handle.close()
            throw .commandFailed(command: command, status: -1, output: "\(error)")
        }
        if !(await exited.wait(until: { $0 }, timeout: timeout)) {
            kill(process.processIdentifier, SIGKILL)
            try? handle.close()
            throw .commandFailed(command: command, status: -1, output: "no exit within \(timeout)")
        }
        try? handle.close()
        let text = (FileManager.default.contents(atPath: output.path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard process.terminationStatus == 0 else {
            throw .commandFailed(command: command, status: process.terminationStatus, output: text)
        }
        return text
    }
}
