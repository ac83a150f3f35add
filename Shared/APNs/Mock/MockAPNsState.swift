import Foundation
import Synchronization

/// What mock-apns remembers: counters, unregistered tokens, faults, recorded pushes and the
/// JSON-lines log. Guarded by one `Mutex`.
final class MockAPNsState: Sendable {
    private struct Storage {
        var accepted = 0
        var rejected: [String: Int] = [:]
        var unregistered: [String: Int64] = [:]
        var faults: MockAPNsFaults
        var deliveries: [String: [MockAPNsDelivery]] = [:]
        var recorded = 0
        var logBuffer: [UInt8] = []
    }

    private let storage: Mutex<Storage>
    private let record: Bool
    private let maxRecorded: Int
    private let log: FileHandle?

    init(faults: MockAPNsFaults, record: Bool, maxRecorded: Int, logFile: String?) throws {
        storage = Mutex(Storage(faults: faults))
        self.record = record
        self.maxRecorded = maxRecorded
        if let logFile {
            if !FileManager.default.fileExists(atPath: logFile) {
                FileManager.default.createFile(atPath: logFile, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: logFile) else {
                throw APNsError.invalidConfiguration("cannot open delivery log \(logFile)")
            }
            handle.seekToEndOfFile()
            log = handle
        } else {
            log = nil
        }
    }

    var faults: MockAPNsFaults {
        get { storage.withLock { $0.faults } }
    }

    func setFaults(_ faults: MockAPNsFaults) { storage.withLock { $0.faults = faults } }

    /// 410 timestamp (ms) for an unregistered token.
    func unregisteredSince(_ token: String) -> Int64? { storage.withLock { $0.unregistered[token] } }

    func markUnregistered(_ token: String, since milliseconds: Int64) { storage.withLock { $0.unregistered[token] = milliseconds } }

    func noteRejected(_ reason: APNsReason) { storage.withLock { $0.rejected[reason.rawValue, default: 0] += 1 } }

    func noteAccepted(_ delivery: MockAPNsDelivery) {
        let line: [UInt8]? = log == nil ? nil : (try? JSONEncoder().encode(delivery)).map { Array($0) + [0x0a] }
        let flush: [UInt8]? = storage.withLock { storage in
            storage.accepted += 1
            if record && storage.recorded < maxRecorded {
                storage.deliveries[delivery.token, default: []].append(delivery)
                storage.recorded += 1
            }
            guard let line else { return nil }
            storage.logBuffer.append(contentsOf: line)
            guard storage.logBuffer.count >= 64 * 1024 else { return nil }
            defer { storage.logBuffer.removeAll(keepingCapacity: true) }
            return storage.logBuffer
        }
        if let flush { log?.write(Data(flush)) }
    }

    /// Writes buffered log lines now.
    func flushLog() {
        let pending = storage.withLock { storage -> [UInt8] in
            defer { storage.logBuffer.removeAll() }
            return storage.logBuffer
        }
        if !pending.isEmpty { log?.write(Data(pending)) }
    }

    func deliveries(token: String?) -> [MockAPNsDelivery] {
        storage.withLock { storage in
            if let token { return storage.deliveries[token] ?? [] }
            return storage.deliveries.values.flatMap { $0 }.sorted { $0.receivedAt < $1.receivedAt }
        }
    }

    func counts() -> (accepted: Int, rejected: [String: Int]) { storage.withLock { ($0.accepted, $0.rejected) } }

    func reset() {
        flushLog()
        storage.withLock { storage in
            storage = Storage(faults: MockAPNsFaults())
        }
    }
}
