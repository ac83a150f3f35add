import Contracts
import Cricket

/// Turns fixture snapshots into `MatchBusEvent`s: the pure core of the detector service.
///
/// Deterministic: the same snapshot applied to the same state gives the same events, eventIds, seqs and
/// state, so a snapshot re-processed after a crash reproduces exactly what may already have been produced.
/// Time comes from the snapshot (`polledAt`), never from a clock read here: cooldowns are replay-safe.
public struct MatchDetector: Sendable {
    public var configuration: DetectionTuning
    let builder = DisplayStateBuilder()

    public init(configuration: DetectionTuning = DetectionTuning()) {
        self.configuration = configuration
    }

    /// Processes one snapshot of match `matchId` polled at `polledAt` (Unix epoch milliseconds).
    public func process(fixture: SportMonksFixture, matchId: String, polledAt: Int64, state previous: DetectorState?)
        -> DetectionOutcome
    {
        var state = previous ?? DetectorState(matchId: matchId)
        let maxBallId = fixture.balls?.map(\.id).max() ?? 0
        let (phase, recognised) = PhaseReading.phase(fixture.status, previous: state.phase,
                                                     hasBalls: maxBallId > 0)
        let unknown = recognised ? nil : fixture.status.rawValue
        if let disposition = order(state: state, maxBallId: maxBallId, polledAt: polledAt, phase: phase) {
            return DetectionOutcome(disposition: disposition, events: [], detected: [], state: state,
                                    unknownStatus: unknown, correctedBallIds: [])
        }

        var watermark = state.lastBallId
        if state.isNew, let balls = fixture.balls, balls.count > configuration.bootstrapWindow {
            watermark = balls.map(\.id).sorted()[balls.count - configuration.bootstrapWindow - 1]
        }
        let analysis = MatchAnalysis(fixture: fixture, watermark: watermark)
        let teams = TeamScores(analysis: analysis)
        let corrected = state.corrections(in: analysis.balls)
        if Self.scoreWentBackwards(analysis: analysis, state: state, maxBallId: maxBallId, corrected: corrected) {
            return DetectionOutcome(disposition: .scoreBackwards, events: [], detected: [], state: state,
                                    unknownStatus: unknown, correctedBallIds: [])
        }

        var detected = BallEventDetector(analysis: analysis, teams: teams).events(announced: state.milestones)
        let previousStatus = state.lastStatus.map(SportMonksStatus.init(rawValue:))
        var phaseEvents = PhaseEventDetector(analysis: analysis, teams: teams, phase: phase)
            .events(state: state, previousStatus: previousStatus)
        if state.isNew, let current = analysis.current {
            // First sight of a match already under way: earlier innings are history, not news.
            let history = phaseEvents.filter { $0.scoreboard.map { InningsLedger.number(of: $0) < current.number } ?? false }
            for event in history { remember(event, analysis: analysis, in: &state) }
            phaseEvents.removeAll { history.contains($0) }
        }
        detected += phaseEvents
        detected += tier0Events(analysis: analysis, state: state, hasTier1: !detected.isEmpty)
        detected.sort { ($0.position, $0.subOrder) < ($1.position, $1.subOrder) }

        var cooldowns = Cooldowns(expiries: state.cooldowns, seconds: configuration.cooldownSeconds)
        cooldowns.prune(at: polledAt)
        let keyEvents = AlertPolicy.keyEvents(for: detected, cooldowns: &cooldowns, now: polledAt)
        // The footer describes the LATEST event of the snapshot (a catch-up of several balls must not
        // show an older one as the latest); among events of that same delivery, the weightiest.
        let footerEvents = detected.filter { $0.kind != .runs && $0.kind != .matchStart && $0.kind != .stumps }
        let latest = footerEvents.map(\.position).max()
        let footer = footerEvents.filter { $0.position == latest }
            .max { AlertPolicy.rank($0.kind) < AlertPolicy.rank($1.kind) }?.line
        let session = sessionOfDay(analysis: analysis, teams: teams, state: &state)
        let display = builder.build(matchId: matchId, analysis: analysis, phase: phase, footer: footer,
                                    updatedAt: polledAt / 1000, session: session)

        var events: [MatchBusEvent] = []
        var seq = state.seq
        let ballAt = analysis.balls.last?.updatedAt.flatMap(SportMonksTimestamp.seconds).map { $0 * 1000 }
        // The event that ends the match must be the last of its snapshot: la-coordinator ends every
        // Live Activity on the first `.ended` event, so an alert on a later one would reach nobody (the
        // fault suite lost the result alert this way). Earlier events of the ending snapshot keep the
        // phase the match had before, and alert-worthy events go last (stable order otherwise).
        // A day's close ends the day's activities the same way, so it goes last of its snapshot too.
        let ordered = phase == .ended ? keyEvents.filter { $0.priority != 10 } + keyEvents.filter { $0.priority == 10 }
            : keyEvents.filter { $0.kind != .stumps } + keyEvents.filter { $0.kind == .stumps }
        let phaseBeforeEnd = state.phase.flatMap { $0 == .ended ? nil : $0 } ?? .live
        let total = ordered.isEmpty ? (display != state.displayState ? 1 : 0) : ordered.count
        func emit(_ keyEvent: KeyEvent?) {
            seq += 1
            let isLast = events.count == total - 1
            let eventPhase = phase == .ended && !isLast && state.phase != .ended ? phaseBeforeEnd : phase
            events.append(MatchBusEvent(eventId: "\(matchId):\(seq)", matchId: matchId, seq: seq, emittedAt: polledAt,
                                        ballAt: ballAt, displayState: display, keyEvent: keyEvent, phase: eventPhase))
        }
        for keyEvent in ordered { emit(keyEvent) }
        if events.isEmpty, display != state.displayState { emit(nil) }

        for event in detected { remember(event, analysis: analysis, in: &state) }
        state.seq = seq
        state.lastPolledAt = max(state.lastPolledAt ?? polledAt, polledAt)
        state.lastBallId = max(state.lastBallId, maxBallId)
        state.lastStatus = fixture.status.rawValue
        state.phase = phase
        state.previousScores = Dictionary(analysis.innings.map { ($0.scoreboard, analysis.totals($0.number)) },
                                          uniquingKeysWith: { a, _ in a })
        state.remember(analysis.balls)
        state.cooldowns = cooldowns.expiries
        state.displayState = display
        var contradictions = analysis.contradictions
        if phase == .ended, let contradiction = ResultLine(analysis: analysis, teams: teams).verdict().contradiction {
            contradictions.append(contradiction)
        }
        return DetectionOutcome(disposition: .accepted, events: events, detected: detected, state: state,
                                unknownStatus: unknown, correctedBallIds: corrected, contradictions: contradictions)
    }

    /// True when the snapshot shows the same newest ball as the state, no ball of it corrected, yet an innings with
    /// fewer runs or wickets than the state last showed: the feed's total went backwards on its own (a correction of a
    /// ball changes that ball, and a new ball is always taken).
    static func scoreWentBackwards(analysis: MatchAnalysis, state: DetectorState, maxBallId: Int, corrected: [Int]) -> Bool {
        guard !state.isNew, maxBallId == state.lastBallId, corrected.isEmpty else { return false }
        return analysis.innings.contains { innings in
            guard let before = state.previousScores[innings.scoreboard] else { return false }
            let now = analysis.totals(innings.number)
            return now.runs < before.runs || now.wickets < before.wickets
        }
    }

    /// Nil when the snapshot is newer than the state; else why it is ignored.
    /// Newer = a higher newest ball id, or the same newest ball polled later (a status change or correction).
    /// An ended match only accepts snapshots with new balls or that are still ended.
    func order(state: DetectorState, maxBallId: Int, polledAt: Int64, phase: MatchPhase) -> DetectionOutcome.Disposition? {
        guard let last = state.lastPolledAt else { return nil }
        if maxBallId > state.lastBallId { return nil }
        if maxBallId < state.lastBallId { return .stale }
        if polledAt == last { return .duplicate }
        if polledAt < last { return .stale }
        if state.phase == .ended, phase != .ended { return .stale }
        return nil
    }

    /// The session of the day in play: one more after each interval (lunch, tea, dinner) seen that day. Known
    /// only when this state saw the day begin (it saw the previous day, or the match before its first ball);
    /// a detector that joins mid-day cannot count the intervals it missed, and shows the day alone.
    /// Remembers "day:N" and "interval:N:<status>" in `phaseKeys`.
    func sessionOfDay(analysis: MatchAnalysis, teams: TeamScores, state: inout DetectorState) -> Int? {
        if analysis.balls.isEmpty { state.phaseKeys.insert("day:0") }
        guard let day = StatusLine(analysis: analysis, teams: teams).dayNumber() else { return nil }
        let sawTheDayBegin = state.phaseKeys.contains("day:\(day - 1)")
        state.phaseKeys.insert("day:\(day)")
        if analysis.fixture.status.isInterval { state.phaseKeys.insert("interval:\(day):\(analysis.fixture.status.rawValue)") }
        guard sawTheDayBegin else { return nil }
        return 1 + state.phaseKeys.count { $0.hasPrefix("interval:\(day):") }
    }

    /// Records an announced event in the state so it is never announced again.
    func remember(_ event: DetectedEvent, analysis: MatchAnalysis, in state: inout DetectorState) {
        switch event.kind {
        case .fifty, .hundred, .fiveFor, .hatTrick: state.milestones.insert(event.key)
        case .matchStart, .inningsEnd, .superOver, .stumps, .result: state.phaseKeys.insert(event.key)
        case .targetSet:
            if let target = analysis.activeTarget, event.scoreboard == target.scoreboard {
                state.announcedTargets[target.scoreboard] = target.signature
            }
        default: break
        }
    }

    /// Tier0: from the innings totals alone. A run change with no Tier1 event is a silent `runs` event; a wicket
    /// count rise in a fixture without balls (no Tier1 possible) is a `wicket` event.
    func tier0Events(analysis: MatchAnalysis, state: DetectorState, hasTier1: Bool) -> [DetectedEvent] {
        var out: [DetectedEvent] = []
        let teams = TeamScores(analysis: analysis)
        for innings in analysis.innings {
            let now = analysis.totals(innings.number)
            let before = state.previousScores[innings.scoreboard] ?? InningsScore()
            guard now != before else { continue }
            let line = ScoreFormatter.teamLine(abbr: teams.abbr(innings.teamId), score: teams.score(innings.number),
                                               overs: teams.overs(innings.number))
            if analysis.fixture.balls == nil, now.wickets > before.wickets {
                out.append(DetectedEvent(kind: .wicket, key: "wicket:\(innings.scoreboard):w\(now.wickets)",
                                         scoreboard: innings.scoreboard, ballId: nil, title: "Wicket!", body: line,
                                         position: analysis.balls.count, subOrder: 1))
            } else if !hasTier1, now.runs != before.runs {
                out.append(DetectedEvent(kind: .runs, key: "runs:\(innings.scoreboard):\(now.runs)",
                                         scoreboard: innings.scoreboard, ballId: nil, title: "", body: line,
                                         position: analysis.balls.count, subOrder: 0))
            }
        }
        return out
    }
}
