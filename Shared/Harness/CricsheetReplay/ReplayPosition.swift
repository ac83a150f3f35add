/// Where a replay stands: how many deliveries of the match have been bowled and the match-state phase.
public struct ReplayPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Match-state phase; it decides `status` (and `live`, the result) of the built fixture.
    public enum Phase: String, Sendable, Hashable, Codable {
        /// Before the toss result is published: status "NS".
        case notStarted
        /// An innings is under way: "1st Innings" … "4th Innings", or "Super Over".
        case inningsInProgress
        /// Between two innings: "Innings Break".
        case inningsBreak
        /// Play stopped (rain): "Int.".
        case interrupted
        /// The lunch interval of a day of a multi-day match: "Lunch".
        case lunch
        /// The tea interval: "Tea Break".
        case tea
        /// Close of play at the end of a day that is not the last: "Stump Day N".
        case stumps
        /// Called off without a result: "Aban.".
        case abandoned
        /// Over with a result: "Finished".
        case finished
    }

    /// Deliveries bowled so far across all innings (clamped to the match length when building).
    public var deliveries: Int
    public var phase: Phase

    public init(deliveries: Int, phase: Phase) {
        self.deliveries = max(0, deliveries); self.phase = phase
    }

    /// Before the first ball.
    public static let notStarted = ReplayPosition(deliveries: 0, phase: .notStarted)

    /// `deliveries` bowled with the current innings still in progress.
    public static func inProgress(_ deliveries: Int) -> ReplayPosition {
        ReplayPosition(deliveries: deliveries, phase: .inningsInProgress)
    }

    public var description: String { "\(phase.rawValue)@\(deliveries)" }

    /// True for the positions a replay holds for a while: innings breaks and every stoppage.
    public var isBreak: Bool {
        switch phase {
        case .inningsBreak, .interrupted, .lunch, .tea, .stumps: true
        case .notStarted, .inningsInProgress, .abandoned, .finished: false
        }
    }
}

extension CricsheetMatch {
    /// The canonical sequence of positions of a full replay:
    /// not started → every delivery of the 1st innings → innings break → … → the last delivery →
    /// finished; or, for a no-result match, → interrupted → abandoned. Super overs follow the main innings.
    ///
    /// A match played over several dates also has its days (`MatchDays`): lunch after the first third
    /// of a day's deliveries, tea after two thirds, and stumps after its last one (except the match's last
    /// day). A break due after a delivery that ends an innings comes after that innings break.
    public func replayTimeline() -> [ReplayPosition] {
        let days = MatchDays(match: self)
        guard days.count > 1 else { return ballTimeline() }
        var positions: [ReplayPosition] = []
        let base = ballTimeline()
        for (index, position) in base.enumerated() {
            positions.append(position)
            let next = index + 1 < base.count ? base[index + 1] : nil
            // Insert after the last position showing these deliveries (a following innings break first).
            guard position.phase != .notStarted, next?.deliveries != position.deliveries, next?.phase == .inningsInProgress,
                  let phase = days.breakAfter(deliveries: position.deliveries)
            else { continue }
            positions.append(ReplayPosition(deliveries: position.deliveries, phase: phase))
        }
        return positions
    }

    /// The timeline without the days' breaks.
    func ballTimeline() -> [ReplayPosition] {
        var positions: [ReplayPosition] = [.notStarted]
        var bowled = 0
        let played = innings.filter { $0.deliveryCount > 0 }
        for (index, inning) in played.enumerated() {
            for _ in 0..<inning.deliveryCount {
                bowled += 1
                positions.append(.inProgress(bowled))
            }
            if index < played.count - 1 {
                positions.append(ReplayPosition(deliveries: bowled, phase: .inningsBreak))
            }
        }
        if info.outcome.isNoResult {
            positions.append(ReplayPosition(deliveries: bowled, phase: .interrupted))
            positions.append(ReplayPosition(deliveries: bowled, phase: .abandoned))
        } else {
            positions.append(ReplayPosition(deliveries: bowled, phase: .finished))
        }
        return positions
    }

    /// The position at the very end of the replay (finished, or abandoned for a no-result match).
    public var finalPosition: ReplayPosition {
        ReplayPosition(deliveries: totalDeliveries, phase: info.outcome.isNoResult ? .abandoned : .finished)
    }
}
