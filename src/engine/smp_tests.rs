// The engine on several cores, against a reference model: random hooks on every core
// (switches, interrupts, nested ones, sleep, ticks, creates and deletes, a task deleted
// while it runs on another core, more tasks than IDs), first from one thread choosing
// the cores, then from one thread per core, each taking a lock around its hook as the
// library's hooks take the port's spinlock. The model charges every core's time, clock
// count by clock count, to what the core was running, and splits it at the windows'
// ends: every published window must equal it line by line (each core's interrupts,
// sleep and idle, each task's total over the cores it ran on) and add up to the
// cores times the window's length.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Window length, in counts.
const LEN: u32 = 10_000;

/// A small random number generator (xorshift), so that each seed's run is the same.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What one core runs, as the kernel and the port would have it.
#[derive(Clone, Copy, Default)]
struct CoreModel {
    /// Slot of the task switched in.
    task: usize,
    /// Interrupt handlers under way (nested).
    depth: u32,
    asleep: bool,
    /// The last reading charged up to, in counts since the start.
    last: u64,
}

/// The reference: per window, per slot, the counts charged.
struct Model {
    cores: Vec<CoreModel>,
    /// The engine's clock at the start (the model counts from there, without wrapping).
    start: u32,
    windows: BTreeMap<u32, BTreeMap<usize, u64>>,
}

impl Model {
    fn charged(&self, k: usize) -> usize {
        let c = self.cores[k];
        if c.depth > 0 {
            Engine::ISR + k
        } else if c.asleep {
            Engine::SLEEP + k
        } else {
            c.task
        }
    }

    /// Core `k`'s time up to `now` to what it ran, split at the windows' ends.
    fn charge(&mut self, k: usize, now: u64) {
        let slot = self.charged(k);
        let mut from = self.cores[k].last;
        while from < now {
            let w = from / u64::from(LEN);
            let end = ((w + 1) * u64::from(LEN)).min(now);
            *self.windows.entry(w as u32).or_default().entry(slot).or_default() += end - from;
            from = end;
        }
        self.cores[k].last = now;
    }
}

/// The engine and its model, fed the same hooks.
struct Sim {
    e: Box<Engine>,
    m: Model,
    /// Tasks that exist: ID (0 for those sharing the bucket) and the core they run
    /// on, if any.
    tasks: Vec<(u32, Option<usize>)>,
    /// Published windows checked.
    checked: u32,
    mark: Option<u32>,
}

impl Sim {
    fn new(at: u32, tasks: usize) -> Sim {
        let mut e = Box::new(Engine::new(LEN));
        let mut list = Vec::new();
        for _ in 0..tasks {
            list.push((e.task_create(0, at, b"task"), None));
        }
        // The idle tasks, one per core, give their IDs back for the idle tasks' one.
        for k in 0..CORES {
            let id = e.task_create(0, at, b"IDLE");
            assert_eq!(e.idle_task(k, id, b"IDLE", k == 0), Engine::IDLE as u32);
        }
        e.scheduler_start(Engine::IDLE as u32);
        e.restart(at);
        let cores = (0..CORES).map(|k| CoreModel { task: Engine::IDLE + k, depth: 0, asleep: false, last: 0 }).collect();
        Sim { e, m: Model { cores, start: at, windows: BTreeMap::new() }, tasks: list, checked: 0, mark: None }
    }

    /// One random hook on core `k`, `at` counts after the start (at least every
    /// core's last).
    fn step(&mut self, k: usize, at: u64, rng: &mut Rng) {
        let c = self.m.cores[k];
        self.m.charge(k, at);
        let now = self.m.start.wrapping_add(at as u32);
        match rng.below(12) {
            // Interrupts: enter (nested up to 3 deep), exit.
            0 | 1 if c.depth < 3 && !(c.asleep && c.depth == 0 && rng.below(2) == 0) => {
                self.e.isr_enter(k, now);
                self.m.cores[k].depth += 1;
            }
            2 | 3 if c.depth > 0 => {
                self.e.isr_exit(k, now);
                self.m.cores[k].depth -= 1;
            }
            // The idle task sleeps, and wakes.
            4 if c.depth == 0 && !c.asleep && c.task == Engine::IDLE + k => {
                self.e.sleep_begin(k, now);
                self.m.cores[k].asleep = true;
            }
            5 if c.depth == 0 && c.asleep => {
                self.e.sleep_end(k, now);
                self.m.cores[k].asleep = false;
            }
            // The tick, on core 0.
            6 if k == 0 => {
                self.e.tick(k, now);
            }
            // A task created, on any core (beyond the IDs: the shared bucket).
            7 if self.tasks.len() < Engine::IDS + 4 && c.depth == 0 => {
                let id = self.e.task_create(k, now, b"new");
                self.tasks.push((id, None));
            }
            // A task deleted: one not running, one running here (deleting itself)
            // or one running on another core; a running one runs on, charged, until
            // its core's next switch.
            8 if !self.tasks.is_empty() && c.depth == 0 => {
                let i = rng.below(self.tasks.len() as u64) as usize;
                self.e.task_delete(k, now, self.tasks[i].0).expect("a live task");
                self.tasks.swap_remove(i);
            }
            // A switch: to a task not running on another core, or to an idle task.
            // (Inside a handler too, as ports that switch there do; not asleep
            // outside one.)
            _ if !(c.asleep && c.depth == 0) => {
                // (The task switched out, if it still exists, runs nowhere now: it
                // may be switched in again, here.)
                if let Some(t) = self.tasks.iter_mut().find(|t| t.1 == Some(k)) {
                    t.1 = None;
                }
                let pick = rng.below(self.tasks.len() as u64 + 2) as usize;
                let (id, slot) = match self.tasks.get(pick).filter(|t| t.1.is_none()) {
                    Some(&(id, _)) => {
                        self.tasks[pick].1 = Some(k);
                        (id, id as usize)
                    }
                    None => (Engine::IDLE as u32, Engine::IDLE + k),
                };
                self.e.switch_in(k, now, id);
                self.m.cores[k].task = slot;
            }
            _ => {
                self.e.tick(k, now);
            }
        }
        for j in 0..CORES {
            assert_eq!(usize::from(self.e.run[j].charged), self.m.charged(j), "core {j} after a hook on core {k} at {at}");
        }
        if std::env::var("SMP_DEBUG").is_ok() {
            eprintln!("k{k} at {at}: cores {:?} tasks {:?}", self.m.cores.iter().map(|c| (c.task, c.depth, c.asleep)).collect::<Vec<_>>(), self.tasks);
        }
        self.check();
    }

    /// When a window has been published, it must equal the model's.
    fn check(&mut self) {
        let mark = self.e.window_mark();
        if mark == self.mark {
            return;
        }
        self.mark = mark;
        let h = self.e.header(false).expect("a published window");
        assert_eq!(h.length, u64::from(LEN), "window {} is not the set length", h.window);
        // The cores with no hook since the window's end ran on to it as they were.
        let end = u64::from(h.window + 1) * u64::from(LEN);
        for k in 0..CORES {
            if self.m.cores[k].last < end {
                self.m.charge(k, end);
            }
        }
        let want = self.m.windows.get(&h.window).cloned().unwrap_or_default();
        let mut sum = 0;
        for at in 0..Engine::LINES {
            let got = self.e.line(at, false).row.counts;
            sum += got;
            let slot = if at == Engine::OTHER_AT { Engine::OTHER } else { at };
            assert_eq!(got, want.get(&slot).copied().unwrap_or(0), "window {}, line {at}", h.window);
        }
        assert_eq!(sum, CORES as u64 * u64::from(LEN), "window {} does not add up on {CORES} cores", h.window);
        self.checked += 1;
    }
}

/// Steps shorter than an eighth of a window: no window passes without a hook.
fn step_len(rng: &mut Rng) -> u64 {
    rng.below(u64::from(LEN / 8))
}

#[test]
fn every_window_equals_the_model_line_by_line_whichever_core_each_hook_runs_on() {
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        // Near a counter wrap: differences are modulo 2^32.
        let at = 0u32.wrapping_sub(5 * LEN);
        let mut sim = Sim::new(at, 3);
        let mut now = 0u64;
        for _ in 0..4_000 {
            now += step_len(&mut rng);
            let k = rng.below(CORES as u64) as usize;
            sim.step(k, now, &mut rng);
        }
        assert!(sim.checked >= 10, "seed {seed}: only {} windows checked", sim.checked);
    }
}

#[test]
fn every_window_equals_the_model_with_one_thread_per_core() {
    for seed in 1..=8u64 {
        let sim = Mutex::new((Sim::new(1_000, 4), 0u64));
        std::thread::scope(|s| {
            for k in 0..CORES {
                let sim = &sim;
                s.spawn(move || {
                    let mut rng = Rng((seed << 8 | k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    for _ in 0..3_000 {
                        // The lock the library's hooks take: the clock is read inside it,
                        // so every core's readings are in the order the hooks run.
                        let mut held = sim.lock().unwrap();
                        let (sim, clock) = &mut *held;
                        *clock += step_len(&mut rng);
                        let now = *clock;
                        sim.step(k, now, &mut rng);
                    }
                });
            }
        });
        let (sim, _) = sim.into_inner().unwrap();
        assert!(sim.checked >= 10, "seed {seed}: only {} windows checked", sim.checked);
    }
}
