import Contracts

/// Alert cooldowns against an explicit time (the snapshot's `polledAt`, so a replay decides the same way).
public struct Cooldowns: Sendable, Equatable {
    /// Kind raw value → Unix epoch milliseconds until which alerts of that kind are silent.
    public private(set) var expiries: [String: Int64]
    let seconds: [KeyEventKind: Int64]

    public init(expiries: [String: Int64], seconds: [KeyEventKind: Int64]) {
        self.expiries = expiries
        self.seconds = seconds
    }

    /// True when an alert of `kind` may sound at `now` (milliseconds).
    public func allows(_ kind: KeyEventKind, at now: Int64) -> Bool {
        guard let until = expiries[kind.rawValue] else { return true }
        return now >= until
    }

    /// Records an alert of `kind` at `now`; starts its cooldown when the kind has one.
    public mutating func record(_ kind: KeyEventKind, at now: Int64) {
        guard let duration = seconds[kind], duration > 0 else { return }
        expiries[kind.rawValue] = now + duration * 1000
    }

    /// Drops expired entries so the stored map stays small.
    public mutating func prune(at now: Int64) {
        expiries = expiries.filter { $0.value > now }
    }
}
