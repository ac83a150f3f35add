import Foundation
import Runtime
import Spawning
import Synchronization

/// One spawned child: its `Subprocess` and the log file its stdout and stderr go to.
///
/// Thread safety (`@unchecked Sendable`): `logHandle` is closed at most once under `closed`'s lock;
/// everything else is immutable or `Sendable`.
final class ManagedProcess: @unchecked Sendable {
    let spec: DevProcessSpec
    let logFile: URL
    /// Offset of the log file where this run's output starts (earlier runs appended before it).
    let logStart: UInt64
    private let process: Subprocess
    private let logHandle: FileHandle
    private let closed = NSLock()
    private var isClosed = false
    private let scan: LockedValue<LogScan>

    /// Spawns `spec` from `binDirectory`, appending its output to `logFile`.
    init(spec: DevProcessSpec, binDirectory: URL, logFile: URL) throws(DevStackError) {
        self.spec = spec
        self.logFile = logFile
        let executable = spec.executable.hasPrefix("/") ? URL(fileURLWithPath: spec.executable)
            : binDirectory.appendingPathComponent(spec.executable)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw .notBuilt(executable: spec.executable, binDirectory: binDirectory.path)
        }
        let files = FileManager.default
        try? files.createDirectory(at: logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !files.fileExists(atPath: logFile.path) { _ = files.createFile(atPath: logFile.path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: logFile.path) else {
            throw .spawnFailed(name: spec.name, reason: "cannot open its log \(logFile.path)")
        }
        logStart = handle.seekToEndOfFile()
        scan = LockedValue(LogScan(offset: logStart))
        let banner = "=== \(ISO8601DateFormatter().string(from: Date())) start \(spec.executable) \(spec.arguments.joined(separator: " "))\n"
        handle.write(Data(banner.utf8))
        logHandle = handle
        // The child's ParentWatch stops it when this supervisor dies, even by kill -9.
        let environment = spec.environment.merging([SupervisorEnvironment.parentPIDVariable: String(getpid())]) { _, supervisor in supervisor }
        do {
            process = try Subprocess(executable: executable.path, arguments: spec.arguments, environment: environment,
                                     standardOutput: .file(handle), standardError: .file(handle))
        } catch {
            try? handle.close()
            throw .spawnFailed(name: spec.name, reason: "\(error)")
        }
        self.executableURL = executable
    }

    var pid: Int32 { process.pid }
    /// The executable that was started.
    let executableURL: URL?
    var isRunning: Bool { process.isRunning }
    /// Exit status (or signal number), valid once `isRunning` is false.
    var terminationStatus: Int32 { process.termination?.status ?? -1 }

    /// "exit 0", "signal 15 (Terminated)" once it has exited, else "running".
    var exitDescription: String { process.termination?.description ?? "running" }

    /// Sends `signal` to the process (SIGTERM, SIGKILL, …) if it still runs.
    func send(_ signal: Int32) { process.send(signal) }

    /// Waits up to `timeout` for the process to exit; true when it has.
    func waitForExit(timeout: Duration) async -> Bool {
        let done = await process.waitForExit(timeout: timeout) != nil
        if done { closeLog() }
        return done
    }

    /// The last `lines` lines of its log (read on `BlockingCalls`, off the cooperative pool).
    func logTail(lines: Int = 25) async -> String {
        let file = logFile
        return await DevLogFile.tail(file, lines: lines)
    }

    /// Whether this run's output contains `text`. Each call reads only what was appended since
    /// the previous one (plus enough of the end before it for a match across the boundary), on
    /// `BlockingCalls`: the supervisor asks every 100 ms while a process starts.
    func logContains(_ text: String) async -> Bool {
        let file = logFile
        let needle = Array(text.utf8)
        return await BlockingCalls.run { [self] in
            self.scan.withLock { scan in
                if scan.found.contains(text) { return true }
                guard let handle = FileHandle(forReadingAtPath: file.path) else { return false }
                defer { try? handle.close() }
                handle.seek(toFileOffset: scan.offset)
                let fresh = [UInt8](handle.readDataToEndOfFile())
                let window = scan.carry + fresh
                scan.offset += UInt64(fresh.count)
                scan.carry = Array(window.suffix(max(0, needle.count - 1)))
                guard !needle.isEmpty, window.count >= needle.count else { return needle.isEmpty }
                let hit = (0...(window.count - needle.count)).contains { start in
                    window[start..<(start + needle.count)].elementsEqual(needle)
                }
                if hit { scan.found.insert(text) }
                return hit
            }
        }
    }

    /// How far `logContains` has read this run's log.
    private struct LogScan {
        var offset: UInt64
        var carry: [UInt8] = []
        var found: Set<String> = []
    }

    func closeLog() {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        try? logHandle.close()
    }
}

/// Reading a process's log file. The reads block, so they run on `BlockingCalls`, never on the
/// caller's (cooperative) thread.
public enum DevLogFile {
    /// The last `lines` lines of `file` (reads at most the last 64 KiB).
    public static func tail(_ file: URL, lines: Int = 25) async -> String {
        await BlockingCalls.run {
            guard let handle = FileHandle(forReadingAtPath: file.path) else { return "" }
            defer { try? handle.close() }
            let size = handle.seekToEndOfFile()
            handle.seek(toFileOffset: size > 65_536 ? size - 65_536 : 0)
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        }
    }

    /// Whether `file` contains `text` (reads the whole file; dev logs are small).
    public static func contains(_ file: URL, _ text: String) async -> Bool {
        await BlockingCalls.run {
            guard let data = FileManager.default.contents(atPath: file.path) else { return false }
            return String(decoding: data, as: UTF8.self).contains(text)
        }
    }
}
