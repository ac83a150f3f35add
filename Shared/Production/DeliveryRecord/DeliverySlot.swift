import Contracts
import Runtime

/// One delivery as the record stores it: a fixed 84-byte binary form, so PostgreSQL keeps an activity's history with
/// byte operations only (`recent = substring(new || old for 20 slots)`), never parsing anything. What every push of a job
/// shares (its id, kind, seq, content timestamp, times, priority) is stored once per job in `delivery_jobs` and found by
/// `jobKey`.
///
/// Layout (little-endian): jobKey u64 · at i64 · finishedAt i64 · apns-id 16 bytes · token tail 8 bytes · status u16 ·
/// result u8 · tries u8 · kind u8 · reason 28 bytes (ASCII, NUL-padded, longer text cut) · 3 bytes reserved.
public struct DeliverySlot: Sendable, Equatable {
    public static let size = 84
    static let reasonBytes = 28

    /// `DeliverySlot.key(jobId:)` of the job.
    public var jobKey: Int64
    /// When APNs answered (Unix ms), 0 when never sent.
    public var at: Int64
    /// When the job finished (Unix ms): orders deliveries.
    public var finishedAt: Int64
    /// The apns-id's 16 bytes, or nil.
    public var apnsId: [UInt8]?
    /// The token's last 8 characters (what `TokenMask` shows).
    public var tokenTail: String
    public var status: Int?
    public var result: PushResult
    public var tries: Int
    public var kind: DeliveryKind
    public var reason: String?

    /// The job id's key: FNV-1a 64 of its UTF-8, as a signed 64-bit value (PostgreSQL's bigint).
    public static func key(jobId: String) -> Int64 { Int64(bitPattern: FNV1a.hash64(jobId)) }

    init(_ entry: DeliveryEntry) {
        jobKey = Self.key(jobId: entry.job)
        at = entry.at ?? 0
        finishedAt = entry.finishedAt
        apnsId = entry.apnsId.flatMap(Self.uuidBytes)
        tokenTail = entry.token.hasPrefix("…") ? String(entry.token.unicodeScalars.dropFirst()) : entry.token
        status = entry.status
        result = entry.result
        tries = entry.tries
        kind = entry.kind
        reason = entry.reason
    }

    /// Appends the 84 bytes.
    func write(_ out: inout [UInt8]) {
        func integer<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        integer(UInt64(bitPattern: jobKey))
        integer(at)
        integer(finishedAt)
        if let apnsId { out.append(contentsOf: apnsId) } else { out.append(contentsOf: repeatElement(0, count: 16)) }
        Self.fixed(tokenTail, 8, &out)
        integer(UInt16(clamping: status ?? 0))
        out.append(UInt8(PushResult.allCases.firstIndex(of: result) ?? 0))
        out.append(UInt8(clamping: tries))
        out.append(UInt8(DeliveryKind.allCases.firstIndex(of: kind) ?? 0))
        Self.fixed(reason ?? "", Self.reasonBytes, &out)
        out.append(contentsOf: repeatElement(0, count: 3))
    }

    /// The slot at `offset` of `bytes`; nil when the bytes are short or name an unknown result or kind.
    static func read(_ bytes: [UInt8], at offset: Int) -> DeliverySlot? {
        guard offset >= 0, bytes.count - offset >= size else { return nil }
        func integer<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var value = T.zero
            for index in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: bytes[offset + at + index]) << (8 * index) }
            return value
        }
        let resultIndex = Int(bytes[offset + 50]), kindIndex = Int(bytes[offset + 52])
        guard resultIndex < PushResult.allCases.count, kindIndex < DeliveryKind.allCases.count else { return nil }
        let apns = Array(bytes[(offset + 24)..<(offset + 40)])
        let status = integer(48, UInt16.self)
        let reason = text(bytes[(offset + 53)..<(offset + 53 + reasonBytes)])
        return DeliverySlot(
            jobKey: Int64(bitPattern: integer(0, UInt64.self)), at: integer(8, Int64.self), finishedAt: integer(16, Int64.self),
            apnsId: apns.allSatisfy { $0 == 0 } ? nil : apns, tokenTail: text(bytes[(offset + 40)..<(offset + 48)]),
            status: status == 0 ? nil : Int(status), result: PushResult.allCases[resultIndex], tries: Int(bytes[offset + 51]),
            kind: DeliveryKind.allCases[kindIndex], reason: reason.isEmpty ? nil : reason)
    }

    /// Every slot of a column holding several, in storage order (a short or unknown tail is skipped).
    static func readAll(_ bytes: [UInt8]) -> [DeliverySlot] {
        stride(from: 0, to: bytes.count - size + 1, by: size).compactMap { read(bytes, at: $0) }
    }

    init(jobKey: Int64, at: Int64, finishedAt: Int64, apnsId: [UInt8]?, tokenTail: String, status: Int?, result: PushResult, tries: Int,
         kind: DeliveryKind, reason: String?) {
        self.jobKey = jobKey
        self.at = at
        self.finishedAt = finishedAt
        self.apnsId = apnsId
        self.tokenTail = tokenTail
        self.status = status
        self.result = result
        self.tries = tries
        self.kind = kind
        self.reason = reason
    }

    /// The entry this slot records, with what its job shares (`job`, nil when the job's row is gone: then only the
    /// slot's own facts).
    func entry(_ job: DeliveryJob?) -> DeliveryEntry {
        var freshness: Int64?
        if result == .accepted, at > 0, let knownAt = job?.knownAt {
            let (difference, overflow) = at.subtractingReportingOverflow(knownAt)
            if !overflow { freshness = max(0, difference) }
        }
        return DeliveryEntry(
            kind: kind, job: job?.jobId ?? String(UInt64(bitPattern: jobKey), radix: 16), seq: job?.seq ?? 0, result: result, status: status,
            reason: reason, apnsId: apnsId.map(Self.uuidText), token: tokenTail.isEmpty ? "" : "…" + tokenTail, timestamp: job?.contentTimestamp,
            at: at > 0 ? at : nil, finishedAt: finishedAt, freshnessMs: freshness, tries: tries, priority: job?.priority ?? 0,
            createdAt: job?.createdAt ?? 0, trimStep: job?.trimStep)
    }

    static func fixed(_ text: String, _ count: Int, _ out: inout [UInt8]) {
        var text = text
        let written = text.withUTF8 { bytes -> Int in
            let taken = min(count, bytes.count)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<taken]))
            return taken
        }
        out.append(contentsOf: repeatElement(0, count: count - written))
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func uuidBytes(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            var bytes = [UInt8](repeating: 0, count: 16)
            var count = 0
            var high: UInt8?
            for byte in utf8 where byte != UInt8(ascii: "-") {
                guard let value = byte.hexValue, count < 16 else { return nil }
                if let first = high {
                    bytes[count] = first << 4 | value
                    count += 1
                    high = nil
                } else {
                    high = value
                }
            }
            return count == 16 && high == nil ? bytes : nil
        }
    }

    static func uuidText(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            HexText.append(byte, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What every push of one job shares, stored once per job (`delivery_jobs`).
public struct DeliveryJob: Sendable, Equatable {
    public var matchId: String
    public var jobId: String
    public var kind: DeliveryKind
    public var priority: Int
    public var seq: Int64
    public var contentTimestamp: Int64?
    public var createdAt: Int64
    public var finishedAt: Int64
    public var knownAt: Int64?
    public var trimStep: Int?

    init(_ outcome: PushOutcome) {
        matchId = outcome.matchId
        jobId = outcome.jobId
        kind = DeliveryKind(outcome.kind, priority: outcome.priority)
        priority = outcome.priority
        seq = outcome.stateSeq
        contentTimestamp = outcome.contentTimestamp
        createdAt = outcome.createdAt
        finishedAt = outcome.finishedAt
        knownAt = outcome.knownAt
        trimStep = outcome.trimStep
    }

    init(matchId: String, jobId: String, kind: DeliveryKind, priority: Int, seq: Int64, contentTimestamp: Int64?, createdAt: Int64, finishedAt: Int64,
         knownAt: Int64?, trimStep: Int?) {
        self.matchId = matchId
        self.jobId = jobId
        self.kind = kind
        self.priority = priority
        self.seq = seq
        self.contentTimestamp = contentTimestamp
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.knownAt = knownAt
        self.trimStep = trimStep
    }
}
