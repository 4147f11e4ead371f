/*
 * port.c - the C half of the SMP port layer (portmacro.h says what the layer is):
 * the kernel's locks, the first task's stack frame, starting the scheduler on every
 * hart, the yield of another hart, and the dispatch of every trap, which portASM.S
 * calls on the hart's interrupt stack once the task's context is saved.
 */
#include "FreeRTOS.h"
#include "task.h"

#define portMCAUSE_INTERRUPT            ( 1UL << 31 )
#define portMCAUSE_ECALL_FROM_M         ( 11UL )
#define portMCAUSE_MACHINE_SOFTWARE     ( portMCAUSE_INTERRUPT | 3UL )

#define portMIE_MSIE                    ( 1UL << 3 )
#define portMIE_MTIE                    ( 1UL << 7 )
#define portMIE_MEIE                    ( 1UL << 11 )

/* mstatus of a task's first run: MPP machine mode, MPIE set (mret turns interrupts on),
 * MIE clear until then. */
#define portTASK_FIRST_MSTATUS          ( 0x1800UL | 0x80UL )

/* The context frame (portASM.S): 32 words, so a task's sp stays 16-byte aligned. */
#define portFRAME_WORDS                 32
#define portFRAME_MEPC                  0
#define portFRAME_RA                    1
#define portFRAME_A0                    7  /* x10: slot 2 is x5, so x10 is slot 7 */
#define portFRAME_MSTATUS               29

#define portMSIP( xCoreID )             ( ( volatile uint32_t * ) ( configMSIP_BASE_ADDRESS ) )[ ( xCoreID ) ]

PortSpinlock_t xPortTaskLock;
PortSpinlock_t xPortIsrLock;

volatile UBaseType_t uxPortInHandler[ configNUMBER_OF_CORES ];

BaseType_t xPortCheckIfInISR( void )
{
    UBaseType_t uxSaved = portSET_INTERRUPT_MASK_FROM_ISR();
    BaseType_t xInHandler = ( uxPortInHandler[ portGET_CORE_ID() ] != 0U ) ? pdTRUE : pdFALSE;

    portCLEAR_INTERRUPT_MASK_FROM_ISR( uxSaved );
    return xInHandler;
}
volatile BaseType_t xPortSwitchRequired[ configNUMBER_OF_CORES ];

/* Set (by another hart) when a hart's software interrupt is a yield request, not the
 * wake-up of a lock's waiter or the start: the trap dispatch switches tasks only then. */
static volatile uint32_t ulYieldRequested[ configNUMBER_OF_CORES ];

/* Nonzero while harts 1 and up wait for the scheduler (start.S, vPortSecondaryHartStart).
 * Initialised, so in .data, which QEMU loads: the parked harts read it before hart 0
 * has cleared .bss. */
static volatile uint32_t ulHartsParked = 1U;

/* portASM.S. */
void xPortStartFirstTask( void ) __attribute__( ( noreturn ) );

/* The board's: the tick on hart 0's machine timer; and what another hart sets up for
 * itself before its first task (weak: nothing). */
void vPortSetupTimerInterrupt( void );
void vPortSetupSecondaryHart( BaseType_t xCoreID );

__attribute__( ( weak ) ) void vPortSetupSecondaryHart( BaseType_t xCoreID )
{
    ( void ) xCoreID;
}

/* The board's handlers of everything but yields (weak here, so an image that has no
 * interrupt source of its own still links, and stops loudly if one comes). */
void freertos_risc_v_application_interrupt_handler( uint32_t ulMcause );
void freertos_risc_v_application_exception_handler( uint32_t ulMcause );

__attribute__( ( weak ) ) void freertos_risc_v_application_interrupt_handler( uint32_t ulMcause )
{
    ( void ) ulMcause;
    configASSERT( 0 );
}

__attribute__( ( weak ) ) void freertos_risc_v_application_exception_handler( uint32_t ulMcause )
{
    ( void ) ulMcause;
    configASSERT( 0 );
}

/*-----------------------------------------------------------*/

/* The software interrupt of this hart was raised as a wake-up, not as a yield: clear
 * it, and raise it again if a yield request came meanwhile (a request sets its flag
 * before the interrupt, so it is either seen here or raises the interrupt after this
 * clear). */
static void prvWakeUpClear( uint32_t ulHart )
{
    portMSIP( ulHart ) = 0U;
    __asm volatile ( "fence o, r" ::: "memory" );

    if( ulYieldRequested[ ulHart ] != 0U )
    {
        portMSIP( ulHart ) = 1U;
    }
}

/* WFI with mie narrowed to MSIE: a pending tick or PLIC interrupt, which cannot be
 * taken here anyway (MIE is clear), does not keep it from sleeping, and it still wakes
 * for this hart's software interrupt. */
static void prvWaitForSoftwareInterrupt( void )
{
    uint32_t ulMie;

    __asm volatile ( "csrrw %0, mie, %1" : "=r" ( ulMie ) : "r" ( portMIE_MSIE ) : "memory" );
    __asm volatile ( "wfi" ::: "memory" );
    __asm volatile ( "csrw mie, %0" :: "r" ( ulMie ) : "memory" );
}

/* Sleep in WFI until the lock serves `ulTicket` or its holder lets go (vPortSpinlockGive()
 * sends every waiter its software interrupt), unless it serves it already.
 *
 * Why sleep rather than spin: under -icount QEMU runs the harts in turn in one thread,
 * each until the next timer event. A hart spinning on a lock whose holder's turn has
 * ended spins through its own whole turn, and hart 0, which needs the kernel's locks at
 * every tick, then no longer keeps up with its ticks: it stays in the tick handler for
 * good. A sleeping hart ends its turn at once. (Arm's spinlocks wait in WFE, woken by
 * the holder's SEV, for the same reasons: RISC-V has no WFE, and the CLINT's software
 * interrupt stands in for SEV.) */
static void prvSpinlockSleep( PortSpinlock_t * pxLock,
                              uint32_t ulTicket,
                              uint32_t ulHart )
{
    __asm volatile ( "amoor.w.aqrl zero, %1, %0" : "+A" ( pxLock->ulWaiters ) : "r" ( 1UL << ulHart ) : "memory" );

    /* The bit before the look: a holder that lets go after this sees the bit and wakes
     * this hart (its release, then its look at the bits: the same order, mirrored). */
    __asm volatile ( "fence rw, rw" ::: "memory" );

    if( pxLock->ulServing != ulTicket )
    {
        prvWaitForSoftwareInterrupt();
    }

    prvWakeUpClear( ulHart );
}

void vPortSpinlockTake( PortSpinlock_t * pxLock,
                        BaseType_t xCoreID )
{
    const uint32_t ulMe = ( uint32_t ) xCoreID + 1U;
    uint32_t ulTicket;

    /* Only this hart writes its own number there, and it clears it before letting go,
     * so reading it here is never stale for this hart. */
    if( pxLock->ulOwner == ulMe )
    {
        pxLock->ulDepth++;
        return;
    }

    __asm volatile ( "amoadd.w.aqrl %0, %2, %1" : "=r" ( ulTicket ), "+A" ( pxLock->ulNext ) : "r" ( 1U ) : "memory" );

    while( pxLock->ulServing != ulTicket )
    {
        prvSpinlockSleep( pxLock, ulTicket, ( uint32_t ) xCoreID );
    }

    /* Acquire: what the last holder wrote before its release is seen after this. */
    __asm volatile ( "fence r, rw" ::: "memory" );
    pxLock->ulOwner = ulMe;
    pxLock->ulDepth = 1U;
}

void vPortSpinlockGive( PortSpinlock_t * pxLock,
                        BaseType_t xCoreID )
{
    uint32_t ulWaiters;

    configASSERT( ( pxLock->ulOwner == ( uint32_t ) xCoreID + 1U ) && ( pxLock->ulDepth > 0U ) );

    if( --pxLock->ulDepth == 0U )
    {
        pxLock->ulOwner = 0U;
        /* Release: everything written while holding it is seen by the next holder.
         * Only the holder writes ulServing. */
        __asm volatile ( "fence rw, w" ::: "memory" );
        pxLock->ulServing = pxLock->ulServing + 1U;
        __asm volatile ( "fence rw, rw" ::: "memory" );

        if( pxLock->ulWaiters != 0U )
        {
            __asm volatile ( "amoswap.w.aqrl %0, zero, %1" : "=r" ( ulWaiters ), "+A" ( pxLock->ulWaiters ) :: "memory" );
            __asm volatile ( "fence rw, o" ::: "memory" );

            for( uint32_t ulHart = 0U; ulWaiters != 0U; ulHart++, ulWaiters >>= 1 )
            {
                if( ( ulWaiters & 1U ) != 0U )
                {
                    portMSIP( ulHart ) = 1U;
                }
            }

            /* Let the woken harts run now: a WFI with this hart's own software
             * interrupt pending. On hardware that is no wait at all (WFI returns at
             * once for a pending, enabled interrupt). Under QEMU's round robin it ends
             * this hart's turn, which could otherwise last until the next timer event
             * while the woken hart waits for its turn. */
            portMSIP( xCoreID ) = 1U;
            prvWaitForSoftwareInterrupt();
            prvWakeUpClear( ( uint32_t ) xCoreID );
        }
    }
}

/*-----------------------------------------------------------*/

void vPortYieldCore( BaseType_t xCoreID )
{
    /* What the caller wrote for that hart (in the kernel's critical section) and the
     * flag are ordered before the interrupt that makes it look. */
    ulYieldRequested[ xCoreID ] = 1U;
    __asm volatile ( "fence rw, ow" ::: "memory" );
    portMSIP( xCoreID ) = 1U;
}

/*-----------------------------------------------------------*/

static void prvTaskExitError( void )
{
    /* A task function returned: FreeRTOS tasks must delete themselves instead. */
    configASSERT( 0 );

    for( ; ; )
    {
    }
}

StackType_t * pxPortInitialiseStack( StackType_t * pxTopOfStack,
                                     TaskFunction_t pxCode,
                                     void * pvParameters )
{
    StackType_t * pxFrame = pxTopOfStack - portFRAME_WORDS;

    /* The kernel hands the top word; start the frame 16-byte aligned below it. */
    pxFrame = ( StackType_t * ) ( ( ( uintptr_t ) pxFrame ) & ~( uintptr_t ) portBYTE_ALIGNMENT_MASK );

    for( int i = 0; i < portFRAME_WORDS; i++ )
    {
        pxFrame[ i ] = 0U;
    }

    pxFrame[ portFRAME_MEPC ] = ( StackType_t ) ( uintptr_t ) pxCode;
    pxFrame[ portFRAME_RA ] = ( StackType_t ) ( uintptr_t ) prvTaskExitError;
    pxFrame[ portFRAME_A0 ] = ( StackType_t ) ( uintptr_t ) pvParameters;
    pxFrame[ portFRAME_MSTATUS ] = portTASK_FIRST_MSTATUS;

    return pxFrame;
}

/*-----------------------------------------------------------*/

/* Hart 0, from vTaskStartScheduler(), interrupts masked; pxCurrentTCBs[] holds a task
 * for every hart (the kernel gave each an idle task if nothing else). */
BaseType_t xPortStartScheduler( void )
{
    vPortSetupTimerInterrupt();

    /* The tick and the PLIC go to hart 0 only; every hart takes yields. */
    __asm volatile ( "csrs mie, %0" :: "r" ( portMIE_MTIE | portMIE_MEIE | portMIE_MSIE ) );

    /* Let the other harts go: the kernel's data before the flag, the flag before their
     * wake-up. A yield hart 0 asks of one before it runs its first task stays pending
     * (its flag and its software interrupt), and is taken as soon as that task starts. */
    __asm volatile ( "fence rw, rw" ::: "memory" );
    ulHartsParked = 0U;
    __asm volatile ( "fence rw, ow" ::: "memory" );

    for( BaseType_t xCore = 1; xCore < ( BaseType_t ) configNUMBER_OF_CORES; xCore++ )
    {
        portMSIP( xCore ) = 1U;
    }

    xPortStartFirstTask();
}

/* Harts 1 .. configNUMBER_OF_CORES - 1, from start.S, on their own stack (mscratch's
 * top, later their interrupt stack), interrupts masked. */
void vPortSecondaryHartStart( void ) __attribute__( ( noreturn ) );

void vPortSecondaryHartStart( void )
{
    /* WFI wakes for an interrupt pending and enabled in mie whatever mstatus.MIE says:
     * the software interrupt hart 0 sends. A spurious wake-up finds the flag still set. */
    __asm volatile ( "csrs mie, %0" :: "r" ( portMIE_MSIE ) );

    while( ulHartsParked != 0U )
    {
        __asm volatile ( "wfi" ::: "memory" );
    }

    __asm volatile ( "fence rw, rw" ::: "memory" );
    vPortSetupSecondaryHart( portGET_CORE_ID() );
    xPortStartFirstTask();
}

void vPortEndScheduler( void )
{
    configASSERT( 0 );
}

/*-----------------------------------------------------------*/

/* portASM.S, for every trap, on this hart's interrupt stack with MIE clear; the task's
 * context is saved in its TCB's frame. On return portASM.S restores
 * pxCurrentTCBs[ mhartid ], which the switch may have changed. */
void vPortTrapDispatch( uint32_t ulMcause );

void vPortTrapDispatch( uint32_t ulMcause )
{
    const BaseType_t xCoreID = portGET_CORE_ID();

    uxPortInHandler[ xCoreID ] = 1U;

    if( ulMcause == portMCAUSE_ECALL_FROM_M )
    {
        /* portYIELD() on this hart. */
        xPortSwitchRequired[ xCoreID ] = pdTRUE;
    }
    else if( ulMcause == portMCAUSE_MACHINE_SOFTWARE )
    {
        /* Another hart's portYIELD_CORE(), or a wake-up that is none (a lock's, the
         * start's). Cleared first: a request made from now on raises it again and is
         * taken after this one. */
        portMSIP( xCoreID ) = 0U;
        __asm volatile ( "fence o, r" ::: "memory" );

        /* Taken in one swap: a request that sets the flag again meanwhile is either
         * taken with this one or left for the interrupt it raises next. */
        if( __atomic_exchange_n( &ulYieldRequested[ xCoreID ], 0U, __ATOMIC_ACQ_REL ) != 0U )
        {
            xPortSwitchRequired[ xCoreID ] = pdTRUE;
        }
    }
    else if( ( ulMcause & portMCAUSE_INTERRUPT ) != 0U )
    {
        freertos_risc_v_application_interrupt_handler( ulMcause );
    }
    else
    {
        freertos_risc_v_application_exception_handler( ulMcause );
    }

    if( xPortSwitchRequired[ xCoreID ] != pdFALSE )
    {
        xPortSwitchRequired[ xCoreID ] = pdFALSE;
        vTaskSwitchContext( xCoreID );
    }

    uxPortInHandler[ xCoreID ] = 0U;
}
