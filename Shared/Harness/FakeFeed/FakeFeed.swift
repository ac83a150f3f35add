import Contracts
import CricsheetReplay
import Foundation
import Runtime
import Synchronization

/// The fake SportMonks feed: a schedule of replayed Cricsheet matches that moves with a clock,
/// admin controls (start, pause, resume, seek, reset, speed) and fault injection. The HTTP side is
/// `FakeSportMonksRoutes`; this type holds the state and answers in JSON values.
public final class FakeFeed: Sendable {
    /// Why an admin action failed.
    public enum ControlError: Error, Equatable, CustomStringConvertible {
        case unknownMatch(Int)
        case invalidSeek(matchId: Int, delivery: Int)
        case invalidSpeed(Double)

        public var description: String {
            switch self {
            case .unknownMatch(let id): "no match with fixture id \(id)"
            case .invalidSeek(let id, let delivery): "match \(id) has no delivery \(delivery)"
            case .invalidSpeed(let speed): "speed \(speed) is not a positive number"
            }
        }
    }

    struct State {
        var matches: [Int: ReplayedMatch]
        var order: [Int]
        var speed: Double
    }

    public let configuration: FakeFeedConfiguration
    public let faults = FaultInjector()
    let clock: any WallClock
    let state: LockedValue<State>
    private let cache = LockedValue<[Int: (index: Int, startsAt: Date, value: JSONValue)]>([:])
    private let requestCounts = LockedValue<[String: Int]>([:])
    private let served = LockedValue(ServedTimeline())

    /// Schedules `matches` (Cricsheet ids; `configuration.idOffset` is added) as the configuration says.
    public init(matches: [CricsheetMatch], configuration: FakeFeedConfiguration, clock: any WallClock = SystemWallClock()) {
        self.configuration = configuration
        self.clock = clock
        let now = clock.now()
        var replayed: [Int: ReplayedMatch] = [:]
        var order: [Int] = []
        var upcomingIndex = 0
        for var match in matches.sorted(by: { $0.id < $1.id }) {
            let cricsheetId = match.id
            match.id += configuration.idOffset
            let startsAt: Date
            let mode: ReplayedMatch.Mode
            if configuration.liveMatchIds.contains(cricsheetId) {
                startsAt = now
                mode = .running(anchor: now, anchorStep: 0)
            } else if let days = configuration.upcomingDays {
                startsAt = SportMonksTime.startOfDay(now).addingTimeInterval(
                    TimeInterval(days * 86_400 + configuration.startHourUTC * 3600 + upcomingIndex * 3 * 3600))
                upcomingIndex += 1
                mode = .scheduled
            } else {
                startsAt = SportMonksTime.day(match.info.dates.first, hour: configuration.startHourUTC)
                mode = .scheduled
            }
            replayed[match.id] = ReplayedMatch(match: match, startsAt: startsAt, mode: mode,
                                               breakSteps: configuration.breakSteps)
            order.append(match.id)
        }
        state = LockedValue(State(matches: replayed, order: order, speed: configuration.speed))
    }

    /// Loads every `<id>.json` in `directory` and schedules it.
    public convenience init(directory: URL, configuration: FakeFeedConfiguration, clock: any WallClock = SystemWallClock())
        throws(CricsheetDecodeError)
    {
        self.init(matches: try CricsheetMatch.loadAll(in: directory), configuration: configuration, clock: clock)
    }

    // MARK: - Reading

    /// The current speed in deliveries per second.
    public var speed: Double { state.withLock { $0.speed } }

    /// Fixture ids in schedule order.
    public var fixtureIds: [Int] { state.withLock { $0.order } }

    /// A snapshot of one match's replay.
    public func match(_ id: Int) -> ReplayedMatch? { state.withLock { $0.matches[id] } }

    /// The fixture JSON of match `id` now, with every relation embedded (nil for an unknown id).
    public func fixture(_ id: Int) -> JSONValue? {
        let now = clock.now()
        guard let (match, index) = state.withLock({ state -> (ReplayedMatch, Int)? in
            guard let match = state.matches[id] else { return nil }
            return (match, match.index(ofStep: match.step(at: now, speed: state.speed)))
        }) else { return nil }
        served.withLock {
            $0.note(fixture: id, index: index, position: match.timeline[index], servedAt: Int64((now.timeIntervalSince1970 * 1000).rounded()))
        }
        return render(match, index: index)
    }

    /// Every position served so far, in the order served (`GET /admin/timeline`).
    public var servedPositions: [ServedPosition] { served.withLock { $0.entries } }

    /// Ids of the fixtures listed in /livescores now.
    public func liveFixtureIds() -> [Int] {
        let now = clock.now()
        return state.withLock { state in
            state.order.filter { id in
                state.matches[id]?.isListedLive(at: now, speed: state.speed, lingerSteps: configuration.lingerSteps) == true
            }
        }
    }

    /// Ids of the fixtures scheduled in `[from, to]`, by start time.
    public func fixtureIds(startingBetween from: Date, and to: Date) -> [Int] {
        state.withLock { state in
            state.order.compactMap { state.matches[$0] }
                .filter { $0.startsAt >= from && $0.startsAt <= to }
                .sorted { ($0.startsAt, $0.id) < ($1.startsAt, $1.id) }
                .map(\.id)
        }
    }

    /// Counts a request to `endpoint` (for `/admin/stats`).
    func count(_ endpoint: String) { requestCounts.withLock { $0[endpoint, default: 0] += 1 } }

    /// Requests served per endpoint.
    public var requestsServed: [String: Int] { requestCounts.withLock { $0 } }

    private func render(_ replayed: ReplayedMatch, index: Int) -> JSONValue {
        if let hit = cache.withLock({ $0[replayed.id] }), hit.index == index, hit.startsAt == replayed.startsAt { return hit.value }
        var fixture = replayed.builder.fixture(at: replayed.timeline[index])
        fixture.startingAt = SportMonksTime.format(replayed.startsAt)
        let value: JSONValue
        do {
            value = try replayed.renderer.json(fixture)
        } catch {
            value = .object(["resource": .string("fixtures"), "id": .int(replayed.id), "status": .string("NS")])
        }
        cache.withLock { $0[replayed.id] = (index, replayed.startsAt, value) }
        return value
    }

    // MARK: - Control

    /// Starts match `id` live now from the beginning (a running or paused match that has not ended goes on from
    /// where it stands).
    public func start(_ id: Int) throws(ControlError) {
        try mutate(id) { match, now, speed in
            var step = match.step(at: now, speed: speed)
            switch match.mode {
            case .running, .paused: if step > match.lastIndex { step = 0 }
            case .scheduled, .idle: step = 0
            }
            if step == 0 { match.startsAt = now }
            match.mode = .running(anchor: now, anchorStep: step)
        }
    }

    /// Freezes match `id` where it stands (still listed live).
    public func pause(_ id: Int) throws(ControlError) {
        try mutate(id) { match, now, speed in match.mode = .paused(step: match.step(at: now, speed: speed)) }
    }

    /// Lets a paused match run on from where it stopped.
    public func resume(_ id: Int) throws(ControlError) {
        try mutate(id) { match, now, speed in
            match.mode = .running(anchor: now, anchorStep: match.step(at: now, speed: speed))
        }
    }

    /// Moves match `id` to the first step with `delivery` deliveries bowled (and `phase`, when given);
    /// a running match keeps running from there, any other is paused there.
    public func seek(_ id: Int, delivery: Int, phase: ReplayPosition.Phase? = nil) throws(ControlError) {
        try mutate(id) { match, now, _ throws(ControlError) in
            guard let step = match.step(forDelivery: delivery, phase: phase) else {
                throw .invalidSeek(matchId: id, delivery: delivery)
            }
            if case .running = match.mode {
                match.mode = .running(anchor: now, anchorStep: step)
            } else {
                match.mode = .paused(step: step)
            }
        }
    }

    /// Back to not started and off /livescores until started again.
    public func reset(_ id: Int) throws(ControlError) {
        try mutate(id) { match, _, _ in match.mode = .idle }
    }

    /// Changes the replay speed (deliveries per second) for every match, keeping their positions.
    public func setSpeed(_ speed: Double) throws(ControlError) {
        guard speed > 0, speed.isFinite else { throw .invalidSpeed(speed) }
        let now = clock.now()
        state.withLock { state in
            for id in state.order { state.matches[id]?.reanchor(at: now, speed: state.speed) }
            state.speed = speed
        }
    }

    private func mutate(
        _ id: Int, _ body: (inout ReplayedMatch, Date, Double) throws(ControlError) -> Void
    ) throws(ControlError) {
        let now = clock.now()
        try state.withLock { state throws(ControlError) in
            guard var match = state.matches[id] else { throw .unknownMatch(id) }
            try body(&match, now, state.speed)
            state.matches[id] = match
        }
    }
}
