import Foundation
import Runtime
import Spawning

// Child processes in the tests are `Spawning.Subprocess`es (posix_spawn, reaped off the pool), never
// `Foundation.Process`, whose run() can crash this process (swift-corelibs-foundation #5472). Reading
// a pipe to its end blocks until the writer is done, and with two cores two such reads stop every task of
// the test process (the 28 s stall of issue 14), so it runs on `BlockingCalls`.

extension FileHandle {
    /// Reads until end of file — the writer closed it — off the cooperative pool.
    public func readAll() async -> Data {
        await BlockingCalls.run { [self] in readDataToEndOfFile() }
    }
}

/// The environment of a child the tests start: this process's, `extra` on top, and
/// `SIGHTSCREEN_PARENT_PID` set to this process, so a service (and mock-apns, fake-sportmonks) stops
/// itself when the test process dies — even by a crash or kill -9 — instead of living on and
/// consuming the shared broker's topics beside the next run's stack.
public enum ChildEnvironment {
    public static func supervised(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment[SupervisorEnvironment.parentPIDVariable] = String(getpid())
        return environment
    }
}

/// A short-lived child process run to its end, within a bound.
public enum ChildProcess {
    /// A child that had not exited within its bound: it and every process of its group were killed.
    public struct TimedOut: Error, CustomStringConvertible {
        public let executable: String
        public let arguments: [String]
        public let timeout: Duration
        /// What it had written to standard output by then (the end of it).
        public let output: String
        public var description: String {
            "\(executable) \(arguments.joined(separator: " ")) did not exit within \(timeout): killed; its output ended: \(output.suffix(1000))"
        }
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) until it exits or `timeout`
    /// passes, without blocking a cooperative thread; its exit status and standard output (standard error is
    /// discarded).
    ///
    /// The child leads a process group of its own and writes to a temporary file, not a pipe: a helper it leaves
    /// behind (Chromium's crash handler, a zygote) holding the write end of a pipe kept a read-to-end waiting
    /// forever. Once the child exited, or past the bound, what remains of its group is killed.
    /// - Throws: `TimedOut` (after killing it) when it runs past `timeout`.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Duration = .seconds(120)) async throws -> (status: Int32, output: Data) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        let child: Subprocess
        do {
            child = try Subprocess(executable: executable.path, arguments: arguments,
                                   environment: ChildEnvironment.supervised(environment),
                                   standardOutput: .file(handle), standardError: .null, newProcessGroup: true)
        } catch {
            try? handle.close()
            throw error
        }
        try? handle.close()
        let ended = await child.waitForExit(timeout: timeout)
        kill(-child.pid, SIGKILL)  // the group: whatever the child left running (or the child itself, past the bound)
        let output = await BlockingCalls.run { (try? Data(contentsOf: file)) ?? Data() }  // a file read blocks: off the pool
        guard let ended else {
            await child.waitForExit()
            throw TimedOut(executable: executable.path, arguments: arguments, timeout: timeout,
                           output: String(decoding: output, as: UTF8.self))
        }
        return (ended.status, output)
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
