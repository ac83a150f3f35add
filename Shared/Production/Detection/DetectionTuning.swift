import Contracts

/// Tunables of the detector: alert cooldowns per kind and the bootstrap window.
///
/// Cooldowns (seconds): while a kind is cooling down, new events of that kind are still emitted and
/// counted, but silently (priority 5, no alert). The defaults:
/// - `wicket` 60 s: wickets on consecutive balls (~40 s apart) would buzz twice in a row; the second one
///   shows on the Lock Screen silently, and a hat-trick still alerts (it has its own kind).
/// - `targetSet` 120 s: only revised (D/L) targets alert, and officials can revise twice in a few minutes.
/// - fifty, hundred, five-for, hat-trick, innings end, super over, result: 0 — each happens at most once
///   per player/innings/match, so it can never storm, and suppressing one would lose it for good.
public struct DetectionTuning: Sendable, Equatable {
    /// Seconds of silence after an alert of a kind; kinds not listed have none.
    public var cooldownSeconds: [KeyEventKind: Int64]
    /// On a match's first snapshot, only this many newest deliveries may produce events (older ones are history).
    public var bootstrapWindow: Int

    public init(cooldownSeconds: [KeyEventKind: Int64] = Self.defaultCooldowns, bootstrapWindow: Int = 6) {
        self.cooldownSeconds = cooldownSeconds
        self.bootstrapWindow = bootstrapWindow
    }

    public static let defaultCooldowns: [KeyEventKind: Int64] = [.wicket: 60, .targetSet: 120]

    /// No cooldowns at all (every alert-worthy event alerts; used by tests).
    public static let noCooldowns = DetectionTuning(cooldownSeconds: [:])
}
