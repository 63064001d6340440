"""Session 49A fixes (sweep: audio synthesis and DSP with state).

- A state kept as an enum member or a string that runtime paths change
  (an ADSR stage under a runtime `if`) could not be used as a subscript:
  `counts[stage] += 1` of an IntEnum stage into an array, `RATES[stage]`
  and `NOTES[name]` of a dict keyed by the members or strings,
  `NOTES.get(name, 0.0)` and `time_in[state] += 1` were refused (E300
  "using it as a key or index needs the object itself").  A choice used as
  a subscript now indexes as each object's int (chosen_keys.index), reads
  a dict's item at the position of each object among its keys (KeyError
  checked at run time), in a tuple key too (`TRANSITIONS[(state, event)]`),
  .get()s with the default for an absent key, and stores under it with a
  runtime `if` per object the choice may hold.
- The program's own methods and properties of such an enum member
  (`stage = stage.next()`, `note.freq`, `note.detuned(c)`, attributes its
  __init__ set) were refused (E300 "`.next` needs the object itself"): they
  now run interpreted once per member the choice may hold, under a runtime
  `if` (chosen_members).
- `.name` of an enum choice inside a loop was refused ("raises
  AttributeError for one of the objects") once the loop had made strings:
  the positions a choice may hold were a range of the table that took in
  those strings.  An enum's members now enter the table together, in a
  row, and a runtime loop's carried choice keeps a range of positions
  widened to what its body binds (counters.widened), not every later one;
  so does an attribute that holds a choice (`self.stage`: a runtime `if`
  merges its range, a loop carries one, Rebound.ranges).
- A list holding a choice (`names.append(state)`) could not be changed
  after a later runtime `if` (E500 "mutating a container after a runtime
  `if` ... made it a different object"): the merge rebuilt the choice, and
  with it the list.  A choice rebuilt around the very same position is the
  old one again (state.same_object).
- A list (or int-keyed dict) of IntEnum members read at a runtime position
  (`[Stage.ATTACK, Stage.DECAY][i]`) gave the plain int, not the member:
  the items were taken for a table of numbers.  They are a choice among
  the members now.
- An enum looked up by a runtime int (`Wave(int(params[0]))`) was refused
  (E400 "Wave() of a runtime value"): the member is now a choice among the
  members whose values are ints, and Python's ValueError ("7 is not a
  valid Wave") is checked at run time.
"""
from __future__ import annotations

import enum

import numpy as np
import pytest

import tpucc

from conftest import count_hlo, hlo, raises_at, same_each


# --- a choice among static objects used as a subscript --------------------------------------

class Stage(enum.IntEnum):
    OFF = 0
    ATTACK = 1
    DECAY = 2
    SUSTAIN = 3
    RELEASE = 4


class Wave(enum.Enum):
    SINE = "sine"
    SAW = "saw"
    SQUARE = "square"


GAIN = {Wave.SINE: 1.0, Wave.SAW: 0.5, Wave.SQUARE: 0.25}
NEXT = {"idle": "attack", "attack": "decay", "decay": "sustain", "sustain": "release",
        "release": "idle"}
RATE = {"idle": 0.0, "attack": 0.25, "decay": -0.1, "sustain": 0.0, "release": -0.2}
NOTES = {"C4": 261.63, "E4": 329.63, "G4": 392.0}
TRIGGERS = [(np.array([1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0]), 9),
            (np.array([1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0]), 3),
            (np.array([0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]), 11)]


def stage_histogram(gate, n):
    stage = Stage.OFF
    hist = np.zeros((5, 2))
    i = 0
    while i < n:
        if gate[i] > 0:
            stage = Stage.ATTACK if stage == Stage.OFF else Stage.SUSTAIN
        elif stage != Stage.OFF:
            stage = Stage.RELEASE
        hist[stage, 0] += 1
        hist[stage][1] += gate[i]
        i += 1
    return hist, [10, 20, 30, 40, 50][stage], "oadsr"[stage]


def test_intenum_choice_indexes_arrays_and_sequences():
    compiled = same_each(stage_histogram, *[(g.astype(float), n) for g, n in TRIGGERS])
    assert count_hlo(hlo(compiled, TRIGGERS[0][0].astype(float), 9), "while") == 1


def envelope_states(trig, n):
    state = "idle"
    level = 0.0
    time_in = {k: 0 for k in NEXT}
    i = 0
    while i < n:
        if trig[i] > 0:
            state = NEXT[state]
        level = min(1.0, max(0.0, level + RATE[state]))
        time_in[state] += 1
        i += 1
    return level, state, time_in


def test_string_state_reads_and_updates_dicts_in_a_runtime_loop():
    compiled = same_each(envelope_states, *TRIGGERS)
    assert count_hlo(hlo(compiled, *TRIGGERS[0]), "while") == 1


TRANSITIONS = {("idle", "on"): "attack", ("attack", "on"): "attack", ("attack", "off"): "release",
               ("release", "on"): "attack", ("release", "off"): "idle", ("idle", "off"): "idle"}


def transitions(events, nn):
    state, i, n = "idle", 0, int(nn[0])
    while i < n:
        state = TRANSITIONS[(state, "on" if events[i] > 0 else "off")]
        i += 1
    return state, TRANSITIONS.get((state, "on")), TRANSITIONS.get(("on", state), "none")


def test_a_tuple_key_holding_a_choice_reads_a_dict():
    events = np.array([1, 1, 0, 1, 0, 0])
    compiled = same_each(transitions, *[(events, np.array([n])) for n in (0, 2, 3, 5, 6)])
    assert count_hlo(hlo(compiled, events, np.array([6])), "while") == 1


def voiced(x):
    wave = Wave.SINE
    if x[0] > 0:
        wave = Wave.SAW
    elif x[0] < -1:
        wave = Wave.SQUARE
    name = "G4" if x[1] > 0.5 else "C4" if x[1] > 0 else "B9"
    tone = np.sin(2 * np.pi * NOTES.get(name, 440.0) * x) * GAIN[wave]
    return tone, NOTES.get(name), GAIN[wave]


def test_enum_and_string_keys_read_dicts():
    same_each(voiced, *[(np.array(v),) for v in ([1.0, 0.7], [-0.5, 0.2], [-3.0, -1.0])])


def note_frequency(x):
    name = "C4"
    if x[0] > 0:
        name = "B9"
    return NOTES[name] * 2


def test_absent_key_raises_keyerror_at_run_time():
    compiled = same_each(note_frequency, (np.array([-1.0]),))
    with pytest.raises(KeyError, match="B9"):
        compiled(np.array([1.0]))


def new_key(x):
    d = {"a": 1}
    k = "a"
    if x[0] > 0:
        k = "b"
    d[k] = 5
    return d


def test_storing_under_a_key_the_dict_lacks_is_refused():
    raises_at(new_key, (np.array([1.0]),), match="no key 'b'", line_of="d[k] = 5")


# --- the program's code on an enum member chosen at run time --------------------------------

class Step(enum.Enum):
    IDLE = enum.auto()
    ATTACK = enum.auto()
    DECAY = enum.auto()
    RELEASE = enum.auto()

    def next(self):
        order = list(Step)
        return order[(order.index(self) + 1) % len(order)]

    @property
    def rate(self):
        return {"IDLE": 0.0, "ATTACK": 0.5, "DECAY": -0.25, "RELEASE": -0.5}[self.name]


class Note(enum.Enum):
    C4 = (60, "do")
    E4 = (64, "mi")
    G4 = (67, "sol")

    def __init__(self, midi, solfege):
        self.midi = midi
        self.solfege = solfege

    @property
    def freq(self):
        return 440.0 * 2 ** ((self.midi - 69) / 12)

    def detuned(self, cents):
        return self.freq * 2 ** (cents / 1200)


def note_of(x):
    note = Note.C4
    if x[0] > 0:
        note = Note.G4
    elif x[0] < -1:
        note = Note.E4
    return note.freq, note.midi, note.solfege, note.detuned(x[1]), note.detuned(5.0), note


def test_methods_properties_and_attributes_of_a_chosen_member():
    same_each(note_of, *[(np.array(v),) for v in ([1.0, 3.0], [-0.5, 3.0], [-3.0, -3.0])])


def envelope_steps(trig, nn):
    step = Step.IDLE
    level, letters = 0.0, 0
    n = int(nn[0])
    i = 0
    while i < n:
        if trig[i] > 0:
            step = step.next()
        level = min(1.0, max(0.0, level + step.rate))
        letters += len(step.name)
        i += 1
    return level, letters, step.name, step


STEP_INPUTS = [(np.array([1.0, 0, 1, 1, 0, 1, 1]), np.array([7])),
               (np.array([1.0, 0, 1, 1, 0, 1, 1]), np.array([2])),
               (np.array([1.0, 1, 1, 1, 1, 1, 1]), np.array([6]))]


def test_a_runtime_loop_steps_an_enum_state_and_reads_its_name():
    compiled = same_each(envelope_steps, *STEP_INPUTS)
    assert count_hlo(hlo(compiled, *STEP_INPUTS[0]), "while") == 1


def step_names(trig):
    step = Step.IDLE
    names = []
    for i in range(len(trig)):
        if trig[i] > 0:
            step = Step.ATTACK if step is Step.IDLE else Step.RELEASE
        names.append(step.name)
    return names


def test_names_of_an_enum_choice_in_an_unrolled_loop():
    same_each(step_names, (np.array([1.0, 0, 1, 1, 0]),), (np.array([0.0, 0, 0, 1, 0]),))


# --- a list holding a choice, changed after a later runtime `if` ----------------------------

def appended_states(x):
    state = "idle"
    seen = []
    if x[0] > 0:
        state = "attack"
    seen.append(state)
    if x[1] > 0:
        state = "release"
    seen.append(state.upper())
    return seen


def test_a_list_holding_a_choice_is_appended_to_after_a_runtime_if():
    same_each(appended_states, *[(np.array(v),) for v in ([1.0, -1.0], [-1.0, 1.0])])


# --- IntEnum members picked at run time, and enums looked up by a runtime int ---------------

def picked_stage(x):
    i = int(x[0])
    by_code = {0: Stage.OFF, 1: Stage.ATTACK, 2: Stage.DECAY}
    return [Stage.ATTACK, Stage.DECAY, Stage.RELEASE][i], by_code[i]


def test_intenum_members_picked_at_a_runtime_position_stay_members():
    same_each(picked_stage, *[(np.array([v]),) for v in (0.0, 1.0, 2.0)])


def looked_up(codes):
    step = Step(int(codes[0]))
    stage = Stage(codes[1])
    flags = [Stage(c) is Stage.ATTACK for c in codes]
    return step, step.name, stage, stage + 1, flags


def test_an_enum_looked_up_by_a_runtime_int_is_a_choice_among_its_members():
    compiled = same_each(looked_up, (np.array([2, 1, 4]),), (np.array([4, 3, 0]),))
    with pytest.raises(ValueError, match="7 is not a valid Step"):
        compiled(np.array([7, 1, 1]))


# --- an envelope object per voice, its stage an attribute -----------------------------------

class Envelope:
    def __init__(self, attack, release):
        self.attack, self.release = attack, release
        self.stage = Step.IDLE
        self.level = 0.0

    def gate(self, on):
        if on:
            self.stage = Step.ATTACK
        elif self.stage is not Step.IDLE:
            self.stage = Step.RELEASE

    def tick(self):
        if self.stage is Step.ATTACK:
            self.level += self.attack
            if self.level >= 1.0:
                self.level = 1.0
                self.stage = Step.DECAY
        elif self.stage is Step.RELEASE:
            self.level -= self.release
            if self.level <= 0.0:
                self.level = 0.0
                self.stage = Step.IDLE
        return self.level


def voices(gates, block):
    envs = [Envelope(0.25, 0.5), Envelope(0.5, 0.25)]
    out = np.zeros(gates.shape[0] * block)
    for b in range(gates.shape[0]):
        for env, g in zip(envs, gates[b]):
            env.gate(g > 0)
        for i in range(block):
            for env in envs:
                out[b * block + i] += env.tick()
    return out, [env.stage.name for env in envs], envs[1].stage


def test_enum_stages_of_voice_objects_across_loops():
    same_each(voices, (np.array([[1, 0], [1, 1], [0, 1], [0, 0]]), 8),
              (np.array([[0, 0], [1, 0], [1, 1], [1, 1]]), 8))
