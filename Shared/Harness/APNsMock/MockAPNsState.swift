import APNs
import Foundation
import Synchronization
import Runtime

/// What mock-apns remembers: counters, unregistered tokens, faults, recorded pushes and the
/// JSON-lines log. Guarded by one `Mutex`.
final class MockAPNsState: Sendable {
    private struct Storage {
        var accepted = 0
        /// Per token (every token, recorded or not), in one table so an accepted push costs one look-up: the pushes
        /// accepted (the exactly-once check of benchmarks) and the newest `aps.timestamp` among them.
        var tokens: [String: TokenRecord] = [:]
        /// Accepted pushes to a token that had one already.
        var repeated = 0
        /// Accepted pushes that carried an older `aps.timestamp` than the token's newest (a device shown an older
        /// state after a newer one).
        var backwards = 0
        /// Accepted pushes per `aps.timestamp` (one per event in the benchmarks): count, first and last acceptance.
        var byTimestamp: [Int64: MockAPNsTimestampCount] = [:]
        /// `receivedAt` of the first and the last accepted push (ms), 0 before any.
        var firstAcceptedAt: Int64 = 0
        var lastAcceptedAt: Int64 = 0
        var rejected: [String: Int] = [:]
        /// Channel-management requests refused (create, read, delete, list), apart from pushes: deleting a channel
        /// this mock never made (ChannelNotRegistered) is routine, not a refused push.
        var channelRejected: [String: Int] = [:]
        var unregistered: [String: Int64] = [:]
        var faults: MockAPNsFaults
        /// Recorded pushes in acceptance order (ascending `sequence`).
        var log: [MockAPNsDelivery] = []
        /// Indices into `log` by token.
        var byToken: [String: [Int]] = [:]
        /// Recorded refusals in answer order (ascending `sequence`), and indices into them by token.
        var refusals: [MockAPNsRefusal] = []
        var refusalsByToken: [String: [Int]] = [:]
        var recorded = 0
        /// The sequence of the last recorded push; survives `reset` so pollers never see one reused.
        var lastSequence = 0
        var logBuffer: [UInt8] = []
    }

    private let storage: LockedValue<Storage>
    private let record: Bool
    private let maxRecorded: Int
    private let log: FileHandle?

    init(faults: MockAPNsFaults, record: Bool, maxRecorded: Int, logFile: String?) throws {
        storage = LockedValue(Storage(faults: faults))
        self.record = record
        self.maxRecorded = maxRecorded
        if let logFile {
            if !FileManager.default.fileExists(atPath: logFile) {
                _ = FileManager.default.createFile(atPath: logFile, contents: nil)
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

    /// Counts a refused push and, when recording, records it (numbered from the accepted pushes' sequence).
    func noteRefused(_ reason: APNsReason, token: String?, channelId: String?, apnsID: String, priority: Int, apsTimestamp: Int64?,
                     receivedAt: Int64) {
        storage.withLock { storage in
            storage.rejected[reason.rawValue, default: 0] += 1
            guard record && storage.recorded < maxRecorded else { return }
            storage.lastSequence += 1
            if let token { storage.refusalsByToken[token, default: []].append(storage.refusals.count) }
            storage.refusals.append(MockAPNsRefusal(
                sequence: storage.lastSequence, token: token, channelId: channelId, apnsID: apnsID, status: reason.status,
                reason: reason.rawValue, priority: priority, apsTimestamp: apsTimestamp, receivedAt: receivedAt))
            storage.recorded += 1
        }
    }
    func noteChannelRejected(_ reason: APNsReason) { storage.withLock { $0.channelRejected[reason.rawValue, default: 0] += 1 } }

    /// One token's accepted pushes and the newest `aps.timestamp` among them.
    private struct TokenRecord {
        var accepted: Int32 = 0
        var newestTimestamp: Int64 = .min

        /// One more accepted push: whether the token had one already, and whether `timestamp` is older than its newest.
        mutating func note(_ timestamp: Int64?) -> (repeated: Bool, backwards: Bool) {
            accepted += 1
            guard let timestamp else { return (accepted > 1, false) }
            if timestamp < newestTimestamp { return (accepted > 1, true) }
            newestTimestamp = timestamp
            return (accepted > 1, false)
        }
    }

    func noteAccepted(_ delivery: MockAPNsDelivery) {
        let line: [UInt8]? = log == nil ? nil : (try? JSONEncoder().encode(delivery)).map { Array($0) + [0x0a] }
        // Read before the lock: the payload check's value, else a scan of the body (payload checks off).
        let apsTimestamp = delivery.apsTimestamp ?? MockAPNsPayloadCheck.timestamp(in: delivery.payload)
        let flush: [UInt8]? = storage.withLock { storage in
            storage.accepted += 1
            let noted = storage.tokens[delivery.token, default: TokenRecord()].note(apsTimestamp)
            if noted.repeated { storage.repeated += 1 }
            if noted.backwards { storage.backwards += 1 }
            if let timestamp = apsTimestamp {
                storage.byTimestamp[timestamp, default: MockAPNsTimestampCount(accepted: 0, firstAcceptedAt: delivery.receivedAt,
                                                                               lastAcceptedAt: delivery.receivedAt)]
                    .note(delivery.receivedAt)
            }
            if storage.firstAcceptedAt == 0 { storage.firstAcceptedAt = delivery.receivedAt }
            storage.lastAcceptedAt = max(storage.lastAcceptedAt, delivery.receivedAt)
            if record && storage.recorded < maxRecorded {
                var numbered = delivery
                storage.lastSequence += 1
                numbered.sequence = storage.lastSequence
                storage.byToken[delivery.token, default: []].append(storage.log.count)
                storage.log.append(numbered)
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

    /// Records a broadcast's copies to its subscribers like accepted pushes (sequence, log, per-token index) without
    /// counting them as device pushes.
    func recordCopies(_ copies: [MockAPNsDelivery]) {
        guard !copies.isEmpty else { return }
        var lines: [[UInt8]] = []
        if log != nil {
            let encoder = JSONEncoder()
            lines = copies.compactMap { copy -> [UInt8]? in (try? encoder.encode(copy)).map { Array($0) + [0x0a] } }
        }
        let flush: [UInt8]? = storage.withLock { storage in
            for copy in copies where record && storage.recorded < maxRecorded {
                var numbered = copy
                storage.lastSequence += 1
                numbered.sequence = storage.lastSequence
                storage.byToken[copy.token, default: []].append(storage.log.count)
                storage.log.append(numbered)
                storage.recorded += 1
            }
            for line in lines { storage.logBuffer.append(contentsOf: line) }
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

    /// Recorded pushes (for `token`, or all), oldest first, with a sequence above `since`; at most `limit`.
    func deliveries(token: String?, since: Int = 0, limit: Int = Int.max) -> [MockAPNsDelivery] {
        storage.withLock { storage in
            if let token {
                var picked: [MockAPNsDelivery] = []
                for index in storage.byToken[token] ?? [] where (storage.log[index].sequence ?? 0) > since {
                    picked.append(storage.log[index])
                    if picked.count >= limit { break }
                }
                return picked
            }
            // `log` is sorted by sequence: binary search for the first one above `since`.
            var low = 0
            var high = storage.log.count
            while low < high {
                let middle = (low + high) / 2
                if (storage.log[middle].sequence ?? 0) > since { high = middle } else { low = middle + 1 }
            }
            return Array(storage.log[low...].prefix(limit))
        }
    }

    /// Recorded refusals (of `token`, or all), oldest first, with a sequence above `since`; at most `limit`.
    func refusals(token: String?, since: Int = 0, limit: Int = Int.max) -> [MockAPNsRefusal] {
        storage.withLock { storage in
            let candidates: [MockAPNsRefusal]
            if let token {
                candidates = (storage.refusalsByToken[token] ?? []).map { storage.refusals[$0] }
            } else {
                candidates = storage.refusals
            }
            return Array(candidates.lazy.filter { $0.sequence > since }.prefix(limit))
        }
    }

    /// Every recorded device push accepted for a token that had one accepted before (broadcast copies left out), each
    /// with the token's first accepted push: a crash's duplicates, classified by the benchmark that caused them.
    func repeats() -> [MockAPNsRepeat] {
        storage.withLock { storage in
            var found: [MockAPNsRepeat] = []
            for (token, indices) in storage.byToken where indices.count > 1 {
                let pushes = indices.map { storage.log[$0] }.filter { $0.channelId == nil }
                guard let first = pushes.first else { continue }
                for again in pushes.dropFirst() {
                    found.append(MockAPNsRepeat(token: token, first: .init(first), again: .init(again)))
                }
            }
            return found.sorted { ($0.again.sequence) < ($1.again.sequence) }
        }
    }

    /// What was accepted and refused so far.
    struct Counts: Sendable {
        var accepted: Int
        var rejected: [String: Int]
        var channelRejected: [String: Int]
        var distinctTokens: Int
        var repeated: Int
        var firstAcceptedAt: Int64
        var lastAcceptedAt: Int64
        var backwards: Int
        var byTimestamp: [Int64: MockAPNsTimestampCount]
    }

    func counts() -> Counts {
        storage.withLock {
            Counts(accepted: $0.accepted, rejected: $0.rejected, channelRejected: $0.channelRejected, distinctTokens: $0.tokens.count, repeated: $0.repeated,
                   firstAcceptedAt: $0.firstAcceptedAt, lastAcceptedAt: $0.lastAcceptedAt, backwards: $0.backwards,
                   byTimestamp: $0.byTimestamp)
        }
    }

    func reset() {
        flushLog()
        storage.withLock { storage in
            let lastSequence = storage.lastSequence
            storage = Storage(faults: MockAPNsFaults())
            storage.lastSequence = lastSequence
        }
    }
}
