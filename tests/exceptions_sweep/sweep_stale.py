import numpy as np
import tpucc

SETTINGS2 = {"scale": 2.0}
SETTINGS3 = {"scale": 2.0}
LIST2 = [1.0]


class Obj:
    pass


OBJ = Obj()
OBJ2 = Obj()


def key_missing_then_added(x):
    try:
        lr = SETTINGS2["lr"]
    except KeyError:
        lr = 0.1
    return x * lr


def get_missing_then_added(x):
    return x * SETTINGS3.get("lr", 0.1)


def attr_missing_then_added(x):
    try:
        s = OBJ.scale
    except AttributeError:
        s = 1.5
    return x * s


def hasattr_missing_then_added(x):
    return x * (OBJ2.scale if hasattr(OBJ2, "scale") else 1.5)


def index_missing_then_appended(x):
    try:
        v = LIST2[1]
    except IndexError:
        v = -1.0
    return x * v


def arg_obj_attr(x, o):
    try:
        s = o.scale
    except AttributeError:
        s = 1.5
    return x * s


def arg_dict_key(x, d):
    try:
        s = d["lr"]
    except KeyError:
        s = 0.1
    return x * s
