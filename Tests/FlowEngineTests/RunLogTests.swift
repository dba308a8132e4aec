import FlowEngine
import FlowVocabulary
import Testing

@Suite("The run's log keeps what it wrote, bounded")
struct RunLogTests {
    @Test func itKeepsTheLinesWithinItsLevelMasked() {
        let redactor = Redactor()
        redactor.add("hunter2-secret")
        let log = RunLog(level: .warn, redactor: redactor)
        log.write(.error, "login refused hunter2-secret")
        log.write(.debug, "not within the level")
        #expect(log.entries.map(\.message) == ["login refused <redacted>"])
        #expect(log.entries.first?.level == .error)
    }

    @Test func theOldestLinesGoFirstBeyondTheLineLimit() {
        let log = RunLog(level: .path)
        for number in 0..<(RunLog.keptLineLimit + 5) { log.write(.info, "line \(number)") }
        #expect(log.entries.count == RunLog.keptLineLimit)
        #expect(log.entries.first?.message == "line 5")
        #expect(log.entries.last?.message == "line \(RunLog.keptLineLimit + 4)")
    }

    @Test func theOldestLinesGoFirstBeyondTheByteLimit() {
        let log = RunLog(level: .path)
        let line = String(repeating: "x", count: 4096)
        for _ in 0..<100 { log.write(.info, line) }
        let bytes = log.entries.reduce(0) { $0 + $1.message.utf8.count }
        #expect(bytes <= RunLog.keptByteLimit)
        #expect(log.entries.count == RunLog.keptByteLimit / 4096)
    }
}

@Suite("The step history keeps names, outcomes and durations, never messages")
struct StepHistoryTests {
    @Test func onlyFinishedStepsAreKeptWithoutTheirMessages() {
        let history = StepHistory()
        history.record(
            TraceEvent(mode: .onboard, step: "login", from: "ready", to: "running login", outcome: "started"))
        history.record(
            TraceEvent(
                mode: .onboard, step: "login", from: "running login", to: "failed", outcome: "failed",
                duration: .milliseconds(20), errorCode: .credentialsRefused, message: "password hunter2 refused"))
        history.record(
            TraceEvent(mode: .onboard, step: nil, from: "running", to: "running", outcome: "configuration"))
        let entries = history.entries
        #expect(entries.count == 1)
        #expect(entries.first?.step == "login")
        #expect(entries.first?.outcome == "failed")
        #expect(entries.first?.duration == .milliseconds(20))
        #expect(entries.first?.errorCode == .credentialsRefused)
        #expect(!"\(entries)".contains("hunter2"))
    }
}
