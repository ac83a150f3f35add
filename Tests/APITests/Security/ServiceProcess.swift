import SharedTestSupport
import Foundation
import Spawning
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A built executable (next to the test bundle, from `swift build --build-tests`) run as a real
/// process, its stdout and stderr written to a log file that tests read back.
final class ServiceProcess: Sendable {
    let name: String
    let logFile: URL
    private let process: Subprocess

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The directory holding the built executables.
    static func binDirectory() throws -> URL {
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while candidate.path != "/" {
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("api").path) { return candidate }
            candidate = candidate.deletingLastPathComponent()
        }
        throw Missing(description: "the api executable is not built next to \(CommandLine.arguments[0]): run `swift build --build-tests`")
    }

    /// Runs `executable arguments` to completion (bounded) and returns its stdout.
    static func output(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let (status, data) = try await ChildProcess.run(try binDirectory().appendingPathComponent(executable), arguments,
                                                        environment: environment)
        guard status == 0 else {
            throw Missing(description: "\(executable) \(arguments.joined(separator: " ")) exited \(status)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts `executable` with the current environment plus `environment`, logging to `directory/name.log`.
    init(_ executable: String, arguments: [String] = [], environment: [String: String], directory: URL) throws {
        name = executable
        logFile = directory.appendingPathComponent("\(executable).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process = try Subprocess(executable: try Self.binDirectory().appendingPathComponent(executable).path, arguments: arguments,
                                 environment: ChildEnvironment.supervised(environment),
                                 standardOutput: .file(handle), standardError: .file(handle))
        try? handle.close()  // the child has its own copy
    }

    var pid: Int32 { process.pid }
    var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` for the process to exit on its own; its exit status, or nil if it
    /// still runs.
    func exitStatus(within timeout: Duration) async -> Int32? {
        await process.waitForExit(timeout: timeout)?.status
    }

    /// The log written so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// A `/proc/<pid>/status` field in kB (VmHWM: peak resident set; VmRSS: current).
    func memoryKB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }

    /// Waits until `line` appears in the log (or the process exits / `timeout` passes).
    func waitForLog(_ line: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if log.contains(line) { return }
            if let ended = process.termination { throw Missing(description: "\(name) exited (\(ended)): \(log.suffix(2000))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Missing(description: "\(name) did not log \(line.debugDescription) within \(timeout): \(log.suffix(2000))")
    }

    /// SIGTERM, then SIGKILL after `grace`; waits for the exit.
    func stop(grace: Duration = .seconds(10)) async {
        guard process.isRunning else { return }
        process.send(SIGTERM)
        if await process.waitForExit(timeout: grace) == nil { process.send(SIGKILL) }
        await process.waitForExit()
    }

    /// Waits until GET `path` on `port` answers 200.
    static func waitForHTTP(port: UInt16, path: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let response = try? await RawHTTPClient.request(port: port, method: "GET", path: path), response.status == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw Missing(description: "http://127.0.0.1:\(port)\(path) not 200 within \(timeout)")
    }
}
