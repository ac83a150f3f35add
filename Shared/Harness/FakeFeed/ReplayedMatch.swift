import CricsheetReplay
import Foundation

/// One Cricsheet match on the fake feed's schedule: its timeline of replay positions and where
/// the replay stands (scheduled, running, paused or idle).
///
/// The timeline is the match's `replayTimeline()` with every innings break and stoppage (lunch, tea, rain) held for
/// `breakSteps` steps, and stumps (the night) for three times that; step `s` shows `timeline[min(s, last)]`. A running replay advances one step
/// every `1 / speed` seconds.
public struct ReplayedMatch: Sendable {
    /// How the replay moves.
    public enum Mode: Sendable, Equatable {
        /// Waits for `startsAt`, then runs from step 0.
        case scheduled
        /// Step `anchorStep` was shown at `anchor`; advancing.
        case running(anchor: Date, anchorStep: Int)
        /// Frozen at `step` (after pause or a seek of a stopped match); listed in /livescores.
        case paused(step: Int)
        /// Reset: not started, not listed in /livescores, waits for an admin `start`.
        case idle
    }

    /// The match with its fixture id (Cricsheet id + offset).
    public let match: CricsheetMatch
    /// Builds its fixtures dated from `startsAt` (rebuilt when that moves).
    private(set) var builder: SportMonksFixtureBuilder
    /// Renders its fixtures as JSON, each delivery encoded once (renewed with the builder).
    private(set) var renderer = FixtureJSONRenderer()
    /// Replay positions, one per step.
    public let timeline: [ReplayPosition]
    /// Scheduled start (`starting_at`); the balls' `updated_at` count from it, day by day.
    public var startsAt: Date {
        didSet {
            guard startsAt != oldValue else { return }
            builder = SportMonksFixtureBuilder(match: match, options: .init(firstDayStart: startsAt))
            renderer = FixtureJSONRenderer()
        }
    }
    public var mode: Mode

    init(match: CricsheetMatch, startsAt: Date, mode: Mode, breakSteps: Int) {
        self.match = match
        self.builder = SportMonksFixtureBuilder(match: match, options: .init(firstDayStart: startsAt))
        var steps: [ReplayPosition] = []
        for position in match.replayTimeline() {
            let held = position.phase == .stumps ? 3 * max(1, breakSteps) : position.isBreak ? max(1, breakSteps) : 1
            steps.append(contentsOf: repeatElement(position, count: held))
        }
        self.timeline = steps
        self.startsAt = startsAt
        self.mode = mode
    }

    /// The fixture id.
    public var id: Int { match.id }
    /// Index of the final position (finished or abandoned).
    public var lastIndex: Int { timeline.count - 1 }

    /// The step at `now` for `speed` deliveries per second (not clamped; may pass `lastIndex`).
    public func step(at now: Date, speed: Double) -> Int {
        switch mode {
        case .idle: return 0
        case .paused(let step): return step
        case .scheduled:
            guard now >= startsAt else { return 0 }
            return Self.advanced(from: 0, since: startsAt, to: now, speed: speed)
        case .running(let anchor, let anchorStep):
            return Self.advanced(from: anchorStep, since: anchor, to: now, speed: speed)
        }
    }

    static func advanced(from step: Int, since anchor: Date, to now: Date, speed: Double) -> Int {
        let elapsed = max(0, now.timeIntervalSince(anchor))
        // Clamp before converting: a match scheduled decades ago must not overflow Int.
        return step + Int(min(1e12, (elapsed * speed + 1e-9).rounded(.down)))
    }

    /// The timeline index shown at `step`.
    public func index(ofStep step: Int) -> Int { min(max(0, step), lastIndex) }

    /// The replay position at `now`.
    public func position(at now: Date, speed: Double) -> ReplayPosition {
        timeline[index(ofStep: step(at: now, speed: speed))]
    }

    /// True when the match is listed in /livescores at `now`: started (or past its start) and not
    /// more than `lingerSteps` steps past its final position.
    public func isListedLive(at now: Date, speed: Double, lingerSteps: Int) -> Bool {
        switch mode {
        case .idle: return false
        case .scheduled where now < startsAt: return false
        default: return step(at: now, speed: speed) <= lastIndex + lingerSteps
        }
    }

    /// The first step showing `deliveries` bowled (and `phase`, when given); nil when there is none.
    public func step(forDelivery deliveries: Int, phase: ReplayPosition.Phase? = nil) -> Int? {
        timeline.firstIndex { position in
            position.deliveries >= deliveries && (phase == nil || position.phase == phase)
        }
    }

    /// Freezes the current step into a new anchor (before a speed change or a pause).
    mutating func reanchor(at now: Date, speed: Double) {
        let started: Bool = switch mode {
        case .running: true
        case .scheduled: now >= startsAt
        case .paused, .idle: false
        }
        if started { mode = .running(anchor: now, anchorStep: step(at: now, speed: speed)) }
    }
}
