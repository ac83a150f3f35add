import DevStack
import Foundation
import PipelineTestSupport
import SharedTestSupport

/// SIGSTOP / SIGCONT of whole processes: what a broker GC pause, a stalled disk or a frozen VM looks
/// like from outside (sockets stay open, nothing answers).
enum ProcessPause {
    /// The pid written in `file` (first line), e.g. `tansu.pid` or PostgreSQL's `postmaster.pid`.
    static func pid(inFile file: URL) throws -> Int32 {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let line = text.split(separator: "\n").first, let pid = Int32(line.trimmingCharacters(in: .whitespaces)), pid > 0 else {
            throw PipelineTestFailure("no pid in \(file.path): is the stack (scripts/stack up) running with this STACK_DIR?")
        }
        return pid
    }

    /// Direct children of `parent`, read from /proc (PostgreSQL's server processes under the postmaster).
    static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), ProcessStat(pid: pid)?.parent == parent else { return nil }
            return pid
        }
    }

    /// Every process of the running PostgreSQL server: the postmaster and its children.
    static func postgresProcesses() throws -> [Int32] {
        let stack = PipelineEnvironment.stackDirectory
        let recorded = stack.appendingPathComponent("pgdata.path")
        let dataDirectory = (try? String(contentsOf: recorded, encoding: .utf8)).map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? stack.appendingPathComponent("pgdata")
        let postmaster = try pid(inFile: dataDirectory.appendingPathComponent("postmaster.pid"))
        return [postmaster] + children(of: postmaster)
    }

    /// Stops `pids` (in order), or throws naming the one that could not be stopped.
    static func stop(_ pids: [Int32]) throws {
        for pid in pids where kill(pid, SIGSTOP) != 0 {
            let error = errno
            resume(pids)
            throw PipelineTestFailure("cannot SIGSTOP pid \(pid) (errno \(error)); run the fault suite as root or as the servers' user")
        }
    }

    /// Resumes `pids`, last stopped first.
    static func resume(_ pids: [Int32]) {
        for pid in pids.reversed() { kill(pid, SIGCONT) }
    }
}
