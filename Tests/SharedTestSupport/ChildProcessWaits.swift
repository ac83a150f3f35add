import Foundation
import Runtime

// Waiting for a child process from async test code without blocking a cooperative thread:
// `waitUntilExit()` and reading a pipe to its end block until the child is done, and with two
// cores two such waits stop every task of the test process (the 28 s stall of issue 14).

extension Process {
    /// Suspends until the process has exited (the blocking wait runs on `BlockingCalls`).
    public func waitForExit() async {
        await BlockingCalls.run { [self] in waitUntilExit() }
    }
}

extension FileHandle {
    /// Reads until end of file — the writer closed it — off the cooperative pool.
    public func readAll() async -> Data {
        await BlockingCalls.run { [self] in readDataToEndOfFile() }
    }
}

/// A short-lived child process run to its end.
public enum ChildProcess {
    /// Runs `executable` with `arguments` (and `environment` added to this process's) until it
    /// exits, without blocking a cooperative thread; its exit status and standard output (standard
    /// error is discarded).
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, output: Data)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = await pipe.fileHandleForReading.readAll()
        await process.waitForExit()
        return (process.terminationStatus, output)
    }
}

/// What /proc says about a process: its state letter (`T` stopped, `S` sleeping, …) and its parent.
public struct ProcessStat: Sendable, Equatable {
    public var state: Character
    public var parent: Int32

    /// Reads /proc/`pid`/stat (nil when the process is gone). Fields after "pid (comm)": state, ppid.
    public init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        self.state = state
        self.parent = parent
    }
}
