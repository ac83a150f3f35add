import APNs
import Contracts
import DeadLetter
import Foundation
import Kafka
import Runtime
import ServiceKit

/// apns-sender's sending half, as a service: starts jobs from the read-ahead while sending slots are free — priority
/// 10 first, each key's states in order (`JobLookahead.takeNext`), superseded updates finished without a push — and
/// finishes each job's offset in the `CommitTracker` once the job is final (the jobs topic's consume loop commits
/// from there).
///
/// On graceful shutdown it starts no new job (what is read but not started stays uncommitted for the next owner),
/// turns `accepting_jobs` false and waits for the jobs in flight; when cancelled (the grace period is over) it
/// abandons them uncommitted (they are read again after a restart).
struct JobDispatcher: Service {
    let name = "job-dispatcher"
    let readAhead: JobReadAhead
    let order: SendOrder
    let tracker: CommitTracker
    let jobs: JobSet
    let processor: JobProcessor
    /// Progress marks: written as jobs are answered and final, and read back for jobs read again.
    let marks: ProgressMarks
    let deadLetters: DeadLetterPublisher
    let metrics: SenderMetrics
    let readiness: Readiness
    let logger: Logger
    let clock: any WallClock
    /// The messages being worked on and those finished lately: one read again after its partition came back is not
    /// started twice.
    var running = RunningJobs()
    /// How long one wait for a slot or a change lasts (short, so shutdown is noticed quickly).
    var pollTimeout: Duration { .milliseconds(100) }

    func run() async throws {
        dispatch: while !Task.isCancelled && !GracefulShutdown.isRequested {
            let seen = readAhead.changes.value
            if jobs.hasSlot, let (next, counts) = readAhead.lookahead.withLock({ lookahead in
                lookahead.takeNext(order: order).map { ($0, lookahead.countsByPriority) }
            }) {
                metrics.lookahead(counts)
                let reread = running.known(next.entry.message)
                if reread != .unknown {
                    // Read again after an eager rebalance gave its partition back (what the marks read at the assignment
                    // say of it is not needed): the copy still running here finishes it, or it finished here a moment
                    // ago, before its offset was committed, and is final already.
                    _ = marks.take(next.entry.message)
                    if reread == .running {
                        metrics.rereadWhileRunning.increment()
                        logger.info("job read again while still running here; not started twice", [
                            "partition": next.entry.message.topicPartition.description, "offset": String(next.entry.message.offset),
                        ])
                    } else {
                        metrics.rereadFinished.increment()
                        tracker.finish(next.entry.message.topicPartition, offset: next.entry.message.offset)
                    }
                    continue dispatch
                }
                let known = marks.take(next.entry.message)
                if let known, known.done {
                    // Final before a crash or a rebalance (its results are on their topics): not sent again.
                    if let job = next.entry.job { order.noteSent(job, key: next.entry.key) }
                    tracker.finish(next.entry.message.topicPartition, offset: next.entry.message.offset)
                    continue dispatch
                }
                if next.superseded, let job = next.entry.job {
                    // A newer state of its key is already read: its devices get that one.
                    metrics.superseded(priority: job.priority, count: job.targets.count)
                    metrics.targetsFinished("superseded", count: job.targets.count)
                    metrics.jobFinished("superseded")
                    tracker.finish(next.entry.message.topicPartition, offset: next.entry.message.offset)
                    marks.done(next.entry.message, job: job, reachedDevices: false)
                    continue dispatch
                }
                start(next.entry, known: known)
                continue dispatch
            }
            if !jobs.hasSlot {
                _ = await jobs.wait(until: { $0.hasSlot }, timeout: pollTimeout)
            } else {
                // Settling after an assignment ends with a change (the intake caught up) or at its deadline.
                let settling = readAhead.lookahead.withLock { $0.settlingUntil != nil }
                await readAhead.waitForChange(after: seen, timeout: settling ? .milliseconds(50) : pollTimeout)
            }
        }
        await drain()
    }

    /// No new jobs; in-flight ones finish, or are cancelled once this task is (the grace period is over).
    private func drain() async {
        readiness.set("accepting_jobs", false)
        logger.info("draining", ["inFlightJobs": String(jobs.count)])
        if !(await jobs.wait(until: { $0.count == 0 })) {
            logger.warning("grace period over; abandoning unfinished jobs (read again after restart)", ["jobs": String(jobs.count)])
            jobs.cancelAll()
        }
        // In a task of its own, which the cancellation does not reach: the cancelled jobs get a moment to return.
        await Task { [jobs] in _ = await jobs.wait(until: { $0.count == 0 }, timeout: .seconds(2)) }.value
        logger.info("drained", ["abandonedJobs": String(jobs.count), "unfinished": String(tracker.pendingCount)])
    }

    /// Starts one entry's work as a job; its offset is finished in the tracker, and marked done, once the work is
    /// final. `known`: what progress marks said of an earlier sending of it.
    private func start(_ entry: JobLookahead.Entry, known: ProgressIndex.Entry?) {
        let message = entry.message
        let partition = message.topicPartition
        let finishedJob = entry.job
        running.begin(message)
        let done: @Sendable (_ delivered: Int) -> Void = { [tracker, marks, running] delivered in
            running.end(message, finished: true)  // before the tracker: a copy read again meanwhile is skipped
            tracker.finish(partition, offset: message.offset)
            marks.done(message, job: finishedJob, reachedDevices: delivered > 0)
        }
        let progress = marks.topic == nil ? nil : JobProgress(marks: marks, message: message, known: known)
        let ended: @Sendable () -> Void = { [readAhead, running] in
            running.end(message, finished: false)  // after `done` it was removed already
            readAhead.bump()
        }
        switch entry.incoming {
        case .job(let job):
            let key = entry.key
            jobs.start { [processor, order] slot in
                defer { ended() }
                if case .finished(let delivered, _, _) = await processor.process(job, key: key, order: order, slot: slot, progress: progress) {
                    done(delivered)
                }
            }
        case .invalid(let job, let reason):
            metrics.rejected(kind: "invalid_job")
            logger.warning("invalid job dead-lettered", ["jobId": job.jobId, "reason": reason, "offset": String(message.offset)])
            jobs.start { [processor] _ in
                defer { ended() }
                if case .finished = await processor.deadLetter(job, reason: reason) { done(0) }
            }
        case .poison(let kind, let error, let jobID):
            metrics.rejected(kind: kind)
            logger.warning("unusable message skipped", [
                "kind": kind, "error": String(error.prefix(300)), "partition": partition.description,
                "offset": String(message.offset), "jobId": jobID ?? "",
            ])
            // Parked on the dead-letter topic (and, when it names a job, a rejected DeadPush on push.dead);
            // the offset is final only once both are acknowledged.
            let record = jobID.map {
                DeadPush.rejected(jobId: $0, source: .init(topic: message.topic, partition: message.partition,
                                                           offset: message.offset, kind: kind),
                                  error: error, diedAt: Int64(clock.now().timeIntervalSince1970 * 1000))
            }
            let publisher = processor.publisher
            jobs.start { [deadLetters, metrics] _ in
                defer { ended() }
                do { try await deadLetters.publish(message, kind: kind, error: error) } catch { return }
                if let record {
                    guard let outgoing = try? publisher.dead(record), await publisher.publish([outgoing]) else { return }
                    metrics.deadProduced.increment()
                }
                done(0)
            }
        }
    }
}
