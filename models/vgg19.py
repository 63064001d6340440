"""VGG19 (configuration E of Simonyan & Zisserman, 2014) in plain Python + NumPy.

Runs eagerly as is; `tpucc.compile(model.forward)` turns the whole forward
pass into one XLA module (the weights, found through object attributes,
become the module's runtime inputs: nothing is baked in).

Layout is PyTorch's: images NCHW, conv weights OIHW.  Linear weights are
stored (in, out) so a linear layer is `x @ w + b`.  The classifier has no
dropout.  `train_step` is forward + backward (tpucc.value_and_grad) + SGD;
`numpy_loss_and_grads` is the same gradient by hand in NumPy.

    model = VGG19(image_size=224, seed=0)
    logits = model.forward(images)            # (N, 3, 224, 224) -> (N, 1000)
    step = tpucc.compile(model.train_step)    # forward + backward + SGD: one executable
    loss = step(images, labels, 0.01)
    model.save("vgg19.npz"); model.load("vgg19.npz")
"""
from __future__ import annotations

import copy

import numpy as np

import tpucc
from tpucc import nn

# Configuration E: 3x3 convolutions (output channels) and 2x2 max pools ("M").
CONFIG_E = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M",
            512, 512, 512, 512, "M", 512, 512, 512, 512, "M"]


class Conv2d:
    """3x3 (or any k x k) convolution with bias, He-initialized."""

    def __init__(self, in_channels, out_channels, rng, kernel_size=3, padding=1,
                 dtype=np.float32):
        fan_in = in_channels * kernel_size * kernel_size
        shape = (out_channels, in_channels, kernel_size, kernel_size)
        self.weight = aligned(_he_normal(rng, shape, fan_in, dtype))
        self.bias = aligned(np.zeros(out_channels, dtype))
        self.padding = padding

    def __call__(self, x):
        return nn.conv2d(x, self.weight, self.bias, padding=self.padding)

    def backward(self, x, g):
        """(d input, {"weight": d weight, "bias": d bias}) in NumPy."""
        dx, dw, db = nn.conv2d_vjp(x, self.weight, self.bias, g, padding=self.padding)
        return dx, {"weight": dw, "bias": db}


class Linear:
    """Fully connected layer; weight stored (in_features, out_features)."""

    def __init__(self, in_features, out_features, rng, dtype=np.float32):
        self.weight = aligned(_he_normal(rng, (in_features, out_features), in_features, dtype))
        self.bias = aligned(np.zeros(out_features, dtype))

    def __call__(self, x):
        return nn.linear(x, self.weight, self.bias)

    def backward(self, x, g):
        dx, dw, db = nn.linear_vjp(x, self.weight, self.bias, g)
        return dx, {"weight": dw, "bias": db}


class ReLU:
    def __call__(self, x):
        return nn.relu(x)

    def backward(self, x, g):
        return nn.relu_vjp(x, g), None


class MaxPool2d:
    def __init__(self, kernel_size=2, stride=2):
        self.kernel_size, self.stride = kernel_size, stride

    def __call__(self, x):
        return nn.max_pool2d(x, self.kernel_size, self.stride)

    def backward(self, x, g):
        return nn.max_pool2d_vjp(x, g, self.kernel_size, self.stride), None


class Flatten:
    def __call__(self, x):
        return nn.flatten(x, 1)

    def backward(self, x, g):
        return nn.flatten_vjp(x, g, 1), None


def aligned(array, alignment=64):
    """A copy of `array` whose data starts on a 64-byte boundary.  XLA on the
    CPU reads such NumPy buffers in place; any other it copies at every call
    (575 MB of VGG19 weights: ~0.5 s per training step on a 2-core machine)."""
    buffer = np.empty(array.nbytes + alignment, np.uint8)
    start = -buffer.ctypes.data % alignment
    out = buffer[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def _he_normal(rng, shape, fan_in, dtype):
    """He (Kaiming) normal initialization: N(0, 2 / fan_in)."""
    std = np.sqrt(2.0 / fan_in)
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(dtype)


class VGG19:
    """VGG19 for `image_size` x `image_size` RGB images.  Five 2x2 max pools
    (which floor odd sizes) leave a 512 x (image_size // 32)^2 classifier input.

    `layers` is the list of layers applied in order; layers with parameters
    hold them as NumPy arrays in `.weight` and `.bias`.  Initialization is
    deterministic given `seed`."""

    def __init__(self, num_classes=1000, image_size=224, seed=0, hidden=4096,
                 dtype=np.float32):
        if image_size < 32:
            raise ValueError(f"image_size must be at least 32, got {image_size}")
        self.num_classes, self.image_size, self.hidden = num_classes, image_size, hidden
        rng = np.random.default_rng(seed)
        self.layers = []
        channels = 3
        for v in CONFIG_E:
            if v == "M":
                self.layers.append(MaxPool2d(2, 2))
            else:
                self.layers += [Conv2d(channels, v, rng, dtype=dtype), ReLU()]
                channels = v
        side = image_size // 32
        self.layers += [Flatten(),
                        Linear(channels * side * side, hidden, rng, dtype), ReLU(),
                        Linear(hidden, hidden, rng, dtype), ReLU(),
                        Linear(hidden, num_classes, rng, dtype)]

    def forward(self, x):
        """(N, 3, S, S) images -> (N, num_classes) logits."""
        for layer in self.layers:
            x = layer(x)
        return x

    __call__ = forward

    def loss(self, x, labels):
        """Mean cross-entropy of the logits against integer labels (N,)."""
        return nn.cross_entropy(self.forward(x), labels)

    def train_step(self, x, labels, lr):
        """Forward, backward (tpucc.value_and_grad) and an SGD update of every
        parameter in place; returns the loss.  `tpucc.compile(model.train_step)`
        makes the whole step one executable."""
        loss, grads = tpucc.value_and_grad(VGG19.loss)(self, x, labels)
        for layer, g in zip(self.layers, grads.layers):
            if g is not None:               # layers without parameters get None
                layer.weight -= lr * g.weight
                layer.bias -= lr * g.bias
        return loss

    def numpy_loss_and_grads(self, x, labels):
        """(loss, {"layers.<i>.weight": gradient, ...}) by backpropagation in
        eager NumPy (each layer's `backward`): the reference for tpucc's AD
        and the NumPy side of the training-step benchmark."""
        inputs = []
        for layer in self.layers:
            inputs.append(x)
            x = layer(x)
        loss = nn.cross_entropy(x, labels)
        g = nn.cross_entropy_vjp(x, labels)
        grads = {}
        for i in range(len(self.layers) - 1, -1, -1):
            g, param_grads = self.layers[i].backward(inputs[i], g)
            for name, value in (param_grads or {}).items():
                grads[f"layers.{i}.{name}"] = value
        return loss, grads

    # --- parameters ---------------------------------------------------------------------

    def parameters(self) -> dict:
        """{"layers.<i>.weight" | "layers.<i>.bias": array}, in layer order."""
        params = {}
        for i, layer in enumerate(self.layers):
            for name in ("weight", "bias"):
                if hasattr(layer, name):
                    params[f"layers.{i}.{name}"] = getattr(layer, name)
        return params

    def copy(self) -> "VGG19":
        """A deep copy with 64-byte-aligned parameters (copy.deepcopy's
        arrays are only 16-byte aligned, which XLA:CPU cannot read in place)."""
        clone = copy.deepcopy(self)
        for layer in clone.layers:
            for name in ("weight", "bias"):
                if hasattr(layer, name):
                    setattr(layer, name, aligned(getattr(layer, name)))
        return clone

    def num_parameters(self) -> int:
        return sum(p.size for p in self.parameters().values())

    def save(self, path):
        """Writes every parameter to an uncompressed .npz file."""
        np.savez(path, **self.parameters())

    def load(self, path):
        """Reads parameters written by `save` into this model (shapes must match)."""
        with np.load(path) as data:
            expected = self.parameters()
            missing = sorted(set(expected) - set(data.files))
            extra = sorted(set(data.files) - set(expected))
            if missing or extra:
                raise ValueError(f"{path}: missing {missing}, unexpected {extra}")
            for key, old in expected.items():
                new = data[key]
                if new.shape != old.shape:
                    raise ValueError(f"{path}: {key} has shape {new.shape}, expected {old.shape}")
                _, i, name = key.split(".")
                setattr(self.layers[int(i)], name, aligned(new.astype(old.dtype)))
        return self

    # --- cost ---------------------------------------------------------------------------

    def flops(self, batch=1) -> int:
        """Floating-point operations of one forward pass (see `forward_flops`)."""
        return forward_flops(self.image_size, self.num_classes, self.hidden) * batch


def forward_flops(image_size=224, num_classes=1000, hidden=4096) -> int:
    """2 x multiply-adds of the convolutions and linear layers of one image
    (the usual count: 39.3 GFLOP at 224x224); ReLU and pooling are not counted."""
    total, side, channels = 0, image_size, 3
    for v in CONFIG_E:
        if v == "M":
            side //= 2
        else:
            total += 2 * v * channels * 9 * side * side
            channels = v
    features = channels * side * side
    total += 2 * (features * hidden + hidden * hidden + hidden * num_classes)
    return total
