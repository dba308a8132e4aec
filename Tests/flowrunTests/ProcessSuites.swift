import Testing

/// Every suite that runs `flowrun` (or a server, or a browser) as a process, nested in one suite.
///
/// These tests wait for their programs without holding a thread of the shared concurrency pool (which has one
/// thread a core): `CommandRunner` waits on threads of its own, and `ProcessGate` lets one program a core run at a
/// time. Blocking waits here once held both threads of a 2-core machine for minutes and starved every other suite.
/// Every test here is guarded against a hang by an ``ActiveTimeLimit``, which does not count the waits for a slot.
@Suite(.activeTimeLimit(.seconds(900))) enum ProcessSuites {}
