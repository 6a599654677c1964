package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * torch.fft through the generated methods: the spectrum of a ramp and back, a 2-D transform with a
 * norm, the sample frequencies and shifts, a gradient through a transform, and the refusals.
 */
class FftTest {
  @Test
  void spectrumOfARampAndBack() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 4);
      Tensor h = x.fftRfft();
      assertEquals(DType.COMPLEX128, h.dtype());
      assertArrayEquals(new double[] {10, 0, -2, 2, -2, 0}, h.viewAsReal().toDoubleArray(), 1e-15);
      assertArrayEquals(new double[] {5, 0, -1, 1, -1, 0}, x.fftRfft(null, -1, "ortho").viewAsReal().toDoubleArray(), 1e-15);
      assertArrayEquals(new double[] {1, 2, 3, 4}, h.fftIrfft(4L, -1, null).toDoubleArray(), 1e-15);
    }
  }

  @Test
  void onCudaAsOnTheCpu() {
    if (!Cuda.isAvailable()) return; // cuFFT needs a GPU; scripts/gpu_suite.sh runs this there
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 4).toDevice(Device.cuda(0));
      Tensor h = x.fftRfft();
      assertArrayEquals(new double[] {10, 0, -2, 2, -2, 0}, h.viewAsReal().toDevice(Device.CPU).toDoubleArray(), 1e-12);
      assertArrayEquals(new double[] {1, 2, 3, 4}, h.fftIrfft(4L, -1, null).toDevice(Device.CPU).toDoubleArray(), 1e-12);
    }
  }

  @Test
  void stftOfACosineAndBack() {
    try (TensorScope scope = new TensorScope()) {
      // cos(pi n / 2) in frames of 8 (hop 8, no centering, no window): 4 at frequency 2 in each frame.
      double[] v = new double[16];
      for (int n = 0; n < 16; ++n) v[n] = Math.cos(Math.PI / 2 * n);
      Tensor x = Tensor.of(v, 16);
      Tensor s = x.stft(8, 8L, null, null, false, "reflect", false, null, true);
      double[] want = new double[20];
      want[8] = 4;
      want[10] = 4;
      assertArrayEquals(want, s.viewAsReal().toDoubleArray(), 1e-13); // cos(pi n / 2) is 0 within 1e-15
      assertArrayEquals(v, s.istft(8, 8L, null, null, false, false, null, 16L, false).toDoubleArray(), 1e-13);
      CTorchException e = assertThrows(CTorchException.class, () -> x.stft(8));
      assertTrue(e.getMessage().contains("return_complex"), e.getMessage());
    }
  }

  @Test
  void twoDimsFrequenciesAndShifts() {
    try (TensorScope scope = new TensorScope()) {
      Tensor img = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      Tensor f = img.fftFft2(null, new long[] {-2, -1}, "ortho");
      assertArrayEquals(new float[] {5, 0, -1, 0, -2, 0, 0, 0}, f.viewAsReal().toFloatArray());
      assertArrayEquals(new double[] {0, 0.4, 0.8, -0.8, -0.4},
                        Tensor.fftFftfreq(5, 0.5, DType.FLOAT64, null).toDoubleArray(), 1e-15);
      Tensor k = Tensor.of(new double[] {0, 1, 2, -2, -1}, 5);
      assertArrayEquals(new double[] {-2, -1, 0, 1, 2}, k.fftFftshift().toDoubleArray(), 0);
    }
  }

  @Test
  void gradientThroughATransform() {
    try (TensorScope scope = new TensorScope()) {
      // E = sum |rfft(x)|^2 at x = e0: dE/dx_j = 2 (1 + cos(pi j / 2) + cos(pi j))
      Tensor x = Tensor.of(new double[] {1, 0, 0, 0}, 4).setRequiresGrad(true);
      x.fftRfft().abs().mul(x.fftRfft().abs()).sum().backward();
      assertArrayEquals(new double[] {6, 0, 2, 0}, x.grad().toDoubleArray(), 1e-14);
    }
  }

  @Test
  void refusalsNameTheFunction() {
    try (TensorScope scope = new TensorScope()) {
      Tensor z = Tensor.of(new double[] {1, 2}, 2).fftFft();
      CTorchException e = assertThrows(CTorchException.class, () -> z.fftRfft());
      assertTrue(e.getMessage().contains("fft_rfft"), e.getMessage());
      Tensor x = Tensor.of(new float[] {1, 2}, 2);
      e = assertThrows(CTorchException.class, () -> x.fftFft(0L, -1, null));
      assertTrue(e.getMessage().contains("Invalid number of data points"), e.getMessage());
      e = assertThrows(CTorchException.class, () -> x.fftFft(null, -1, "half"));
      assertTrue(e.getMessage().contains("Invalid normalization mode"), e.getMessage());
    }
  }
}
