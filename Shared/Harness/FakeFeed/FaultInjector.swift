import Synchronization
import Runtime

/// A scripted misbehaviour of the fake API for its next `count` responses.
public struct FeedFault: Sendable, Codable, Equatable {
    /// What goes wrong.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// HTTP 500 with a SportMonks-style error body.
        case serverError = "500"
        /// HTTP 429 with `Retry-After: retryAfter` seconds.
        case rateLimited = "429"
        /// HTTP 403 (data not in the plan).
        case forbidden = "403"
        /// The real body cut in half (invalid JSON, status 200).
        case truncated
        /// A body that is not JSON at all (an HTML error page, status 200).
        case garbage
        /// Every fixture lacks `status` and `localteam_id`.
        case missingFields = "missing_fields"
        /// The latest innings' score is 5 runs lower than it was (runs and scoreboards rows).
        case scoreBackwards = "score_backwards"
    }

    public var kind: Kind
    /// How many more responses it affects.
    public var count: Int
    /// Seconds sent in `Retry-After` for 429.
    public var retryAfter: Int?
    /// Only requests to this endpoint ("livescores", "fixtures" or "fixture"); nil for any.
    public var endpoint: String?

    enum CodingKeys: String, CodingKey { case kind, count, retryAfter, endpoint }

    /// Decodes an admin request; `count` defaults to 1.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(kind: try c.decode(Kind.self, forKey: .kind), count: try c.decodeIfPresent(Int.self, forKey: .count) ?? 1,
                  retryAfter: try c.decodeIfPresent(Int.self, forKey: .retryAfter),
                  endpoint: try c.decodeIfPresent(String.self, forKey: .endpoint))
    }

    public init(kind: Kind, count: Int = 1, retryAfter: Int? = nil, endpoint: String? = nil) {
        self.kind = kind
        self.count = count
        self.retryAfter = retryAfter
        self.endpoint = endpoint
    }
}

/// The queue of pending faults; each API response takes the first fault that matches its endpoint.
public final class FaultInjector: Sendable {
    private let faults = LockedValue<[FeedFault]>([])

    public init() {}

    /// Adds a fault after those already queued.
    public func add(_ fault: FeedFault) {
        guard fault.count > 0 else { return }
        faults.withLock { $0.append(fault) }
    }

    /// Removes every pending fault.
    public func clear() { faults.withLock { $0.removeAll() } }

    /// Pending faults, in order.
    public var pending: [FeedFault] { faults.withLock { $0 } }

    /// Takes one use of the first fault matching `endpoint`, if any.
    func take(endpoint: String) -> FeedFault? {
        faults.withLock { queue in
            guard let index = queue.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return nil }
            let fault = queue[index]
            queue[index].count -= 1
            if queue[index].count <= 0 { queue.remove(at: index) }
            return fault
        }
    }
}
