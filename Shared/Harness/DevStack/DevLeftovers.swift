import Foundation

/// The processes a `DevSupervisor` started, recorded in `<log directory>/dev-supervisor.pids` so
/// that the next `sightscreen dev` (demo, end-to-end test, fault suite) can find what an earlier one
/// left running — a supervisor killed before the parent watch existed, or a child that ignored
/// it — instead of silently sharing topics and consumer groups with it.
///
/// Each line is `pid executable-path`. A recorded pid counts as a leftover only while
/// `/proc/<pid>/exe` is still that executable (a reused pid is not mistaken for one).
public struct DevLeftovers: Sendable {
    /// One process of an earlier run that still runs.
    public struct Process: Sendable, Equatable, CustomStringConvertible {
        public var pid: Int32
        public var executable: String
        public init(pid: Int32, executable: String) {
            self.pid = pid
            self.executable = executable
        }
        public var description: String { "\((executable as NSString).lastPathComponent) (pid \(pid))" }
    }

    public let file: URL

    public init(logDirectory: URL) {
        file = logDirectory.appendingPathComponent("dev-supervisor.pids")
    }

    /// The recorded processes still running their recorded executable.
    public func running() -> [Process] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> Process? in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let pid = Int32(parts[0]), pid > 1 else { return nil }
            let executable = String(parts[1])
            guard let current = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
                  current == executable || current == executable + " (deleted)"
            else { return nil }
            return Process(pid: pid, executable: executable)
        }
    }

    /// Records a started process.
    func record(pid: Int32, executable: URL) {
        let line = "\(pid) \(executable.resolvingSymlinksInPath().path)\n"
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let handle = FileHandle(forWritingAtPath: file.path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try? handle.close()
        } else {
            try? Data(line.utf8).write(to: file)
        }
    }

    /// Forgets every record (all of this run's processes were stopped).
    func clear() {
        try? FileManager.default.removeItem(at: file)
    }
}
