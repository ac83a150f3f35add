import CSpawn
import Foundation
import Runtime
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the development harness and the tests.
///
/// It replaces `Foundation.Process`, whose `run()` on this toolchain reads past the end of a
/// `readdir` buffer while it looks for descriptors to close (swift-corelibs-foundation #5472) and
/// crashed the test process with SIGSEGV. Here the child closes its descriptors itself
/// (`closefrom(3)` as a spawn action), starts with default signal handling, and is reaped by a
/// thread of its own blocked in `waitpid`; async callers wait on a continuation, so no thread of
/// the cooperative pool ever blocks.
///
/// ```swift
/// let child = try Subprocess(executable: "/bin/echo", arguments: ["hi"], standardOutput: .pipe)
/// let text = await child.standardOutput!.readAll()   // SharedTestSupport's off-pool read
/// let ended = await child.waitForExit()              // .exited(0)
/// ```
public final class Subprocess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The executable's path, as given.
    public let executable: String
    /// The write end of the child's standard input when it was `.pipe`.
    public let standardInput: FileHandle?
    /// The read end of the child's standard output when it was `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error when it was `.pipe`.
    public let standardError: FileHandle?
    private let ended: AsyncCondition<Termination?>

    /// Starts `executable` (an absolute path) with `arguments`; `environment` nil inherits this
    /// process's. With `newProcessGroup` the child leads a process group of its own.
    public init(executable: String, arguments: [String] = [], environment: [String: String]? = nil,
                standardInput: StandardStream = .null, standardOutput: StandardStream = .inherit,
                standardError: StandardStream = .inherit, newProcessGroup: Bool = false) throws(SubprocessError) {
        let call = SpawnCall(executable: executable, newProcessGroup: newProcessGroup)
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var parentEnds: [Int32: FileHandle] = [:]
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .inherit: break
            case .null: try call.null(onto: target)
            case .file(let handle): try call.duplicate(handle.fileDescriptor, onto: target)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard sightscreen_spawn_pipe(&ends) == 0 else {
                    throw .wiringFailed(executable: executable, step: "pipe", errno: errno)
                }
                // Standard input's pipe is written by this process; the others are read by it.
                let (mine, theirs) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                childEnds.append(theirs)
                parentEnds[target] = FileHandle(fileDescriptor: mine, closeOnDealloc: true)
                try call.duplicate(theirs, onto: target)
            }
        }
        pid = try call.spawn(arguments: arguments, environment: environment)
        self.executable = executable
        self.standardInput = parentEnds[0]
        self.standardOutput = parentEnds[1]
        self.standardError = parentEnds[2]
        let ended = AsyncCondition<Termination?>(nil)
        self.ended = ended
        Self.reap(pid, into: ended)
    }

    /// How it ended; nil while it runs.
    public var termination: Termination? { ended.value }

    /// Whether it has not been reaped yet.
    public var isRunning: Bool { ended.value == nil }

    /// Sends `signal` (SIGTERM, SIGKILL, …) while it runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Suspends until it has exited.
    @discardableResult
    public func waitForExit() async -> Termination {
        _ = await ended.wait(until: { $0 != nil })
        return ended.value!
    }

    /// Suspends until it has exited or `timeout` passed; nil when it still runs.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Termination? {
        guard await ended.wait(until: { $0 != nil }, timeout: timeout) else { return nil }
        return ended.value
    }

    /// A thread of its own waits for the child (`waitpid` blocks) and records how it ended.
    private static func reap(_ pid: pid_t, into ended: AsyncCondition<Termination?>) {
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                guard errno == EINTR else {
                    // Someone else reaped it (ECHILD): the status is unknown.
                    ended.update { $0 = .exited(-1) }
                    return
                }
            }
            ended.update { $0 = Termination(waitStatus: status) }
        }
        thread.name = "subprocess-reaper-\(pid)"
        thread.stackSize = 64 * 1024
        thread.start()
    }
}
